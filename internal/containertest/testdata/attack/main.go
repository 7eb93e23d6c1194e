// Command attack is the probe the container tests run inside a real
// container, both unconfined (the control that proves an attack works
// there) and under `ringfence run` (where it must be refused). Each verb
// tries one thing and prints "ok" or "refused: <errno>"; the test judges
// from the host side (files on the container's root, listeners' marks),
// never from this output alone.
//
// It is built statically by the test and never shipped.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: attack VERB ARG…")
		os.Exit(2)
	}
	arg := os.Args[2:]
	var err error
	switch os.Args[1] {
	case "write": // write FILE TEXT
		err = os.WriteFile(arg[0], []byte(arg[1]), 0o644)
	case "setid": // setid FILE: a copy of this program, made set-user-id
		err = setid(arg[0])
	case "chmod": // chmod FILE OCTAL
		var mode uint64
		mode, err = strconv.ParseUint(arg[1], 8, 32)
		if err == nil {
			err = syscall.Chmod(arg[0], uint32(mode))
		}
	case "utimes": // utimes FILE: set times to the epoch
		err = syscall.Utimes(arg[0], []syscall.Timeval{{}, {}})
	case "setxattr": // setxattr FILE
		err = syscall.Setxattr(arg[0], "user.ringfence", []byte("x"), 0)
	case "unix": // unix PATH MESSAGE (a leading @ is abstract)
		err = send(arg[0], arg[1])
	case "listen": // listen PATH MARKFILE: record every message received
		err = listen(arg[0], arg[1])
	case "stop": // stop PID: SIGSTOP then SIGCONT a process
		var pid int
		pid, err = strconv.Atoi(arg[0])
		if err == nil {
			if err = syscall.Kill(pid, syscall.SIGSTOP); err == nil {
				err = syscall.Kill(pid, syscall.SIGCONT)
			}
		}
	case "procstop": // procstop PROCDIR: SIGSTOP then SIGCONT through a /proc/PID descriptor used as a pidfd
		var fd int
		if fd, err = syscall.Open(arg[0], syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0); err == nil {
			if err = pidfdSignal(fd, syscall.SIGSTOP); err == nil {
				err = pidfdSignal(fd, syscall.SIGCONT)
			}
			syscall.Close(fd)
		}
	case "threads": // threads FILE SECRET: a process of several threads, SECRET in its argv, that writes its non-leader tids to FILE and stays
		err = threads(arg[0])
	case "ls": // ls DIR: list the names in a directory
		var names []string
		var f *os.File
		if f, err = os.Open(arg[0]); err == nil {
			names, err = f.Readdirnames(-1)
			f.Close()
			fmt.Println(names)
		}
	default:
		err = fmt.Errorf("unknown verb %q", os.Args[1])
	}
	if err != nil {
		fmt.Println("refused:", err)
		os.Exit(1)
	}
	fmt.Println("ok")
}

func setid(path string) error {
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, self, 0o755); err != nil {
		return err
	}
	return syscall.Chmod(path, 0o4755)
}

func send(path, msg string) error {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = io.WriteString(c, msg+"\n")
	return err
}

// listen accepts connections on a unix socket and appends each first line
// to mark, so the host can see which attempts reached it.
func listen(path, mark string) error {
	l, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	fmt.Println("listening")
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		buf := make([]byte, 128)
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		n, _ := c.Read(buf)
		c.Close()
		f, err := os.OpenFile(mark, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			f.Write(buf[:n])
			f.Close()
		}
	}
}

// pidfdSignal is pidfd_send_signal(2) (424 on every architecture).
func pidfdSignal(fd int, sig syscall.Signal) error {
	if _, _, e := syscall.Syscall6(424, uintptr(fd), uintptr(sig), 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// threads starts a few threads (each goroutine locked to its own), writes
// the ids of every thread but the leader to file once they exist, then
// stays: a victim whose /proc/<tid> aliases the sandbox must not read.
func threads(file string) error {
	for range 4 {
		go func() {
			runtime.LockOSThread()
			time.Sleep(time.Hour) // not select{}: the runtime would call that a deadlock
		}()
	}
	time.Sleep(200 * time.Millisecond)
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	var tids []string
	for _, e := range ents {
		if e.Name() != strconv.Itoa(os.Getpid()) {
			tids = append(tids, e.Name())
		}
	}
	if err := os.WriteFile(file+".tmp", []byte(strings.Join(tids, " ")), 0o644); err != nil {
		return err
	}
	if err := os.Rename(file+".tmp", file); err != nil {
		return err
	}
	time.Sleep(time.Hour)
	return nil
}
