package seccomp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The scene: a temp dir holding okay/ (the sandbox's writable root, whose
// sockets are allowed) and host/ (a Docker or ssh-agent socket: refused).
// Each stream listener writes one byte naming itself on accept.
const (
	dirEnv      = "RINGFENCE_SECCOMP_DIR"
	tcpEnv      = "RINGFENCE_SECCOMP_TCP"
	abstractEnv = "RINGFENCE_SECCOMP_ABSTRACT"
	modeEnv     = "RINGFENCE_SECCOMP_MODE" // "all" or "thread"
	raceRounds  = 400
)

func init() {
	helpers["supervisor"] = helperSupervisor
	helpers["client"] = helperClient
	helpers["closed"] = helperClosed
}

// helperClosed checks what a supervised call does once the listener is
// gone: it must fail, not hang and not go through.
func helperClosed() int {
	l, err := installFromEnv()
	if err != nil || l == nil {
		fmt.Printf("install=%v\n", err)
		return 1
	}
	l.Close()
	fmt.Printf("connect=%s\n", dialUnix(os.Getenv(dirEnv)+"/okay/s.sock"))
	return 0
}

// helperSupervisor is the sandbox init in miniature: install the filter,
// supervise, start the command (the client helper) as a child, reap it.
func helperSupervisor() int {
	dir := os.Getenv(dirEnv)
	allow := func(path string) bool { return strings.HasPrefix(path, dir+"/okay/") }
	flags := []Flag{}
	if os.Getenv(modeEnv) == "thread" {
		runtime.LockOSThread() // never unlocked: the filtered thread dies with us
		flags = append(flags, ThisThread)
	}
	l, err := buildInstall(Options{DenyUnixConnect: true}, flags...)
	if err != nil || l == nil {
		fmt.Printf("install=%v\n", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- SuperviseUnix(ctx, l, allow) }()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=client")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	runErr := cmd.Run()
	cancel()
	select {
	case err := <-done:
		fmt.Printf("supervise-return=%v\n", errors.Is(err, context.Canceled))
	case <-time.After(10 * time.Second):
		fmt.Println("supervise-return=hung")
	}
	if runErr != nil {
		fmt.Printf("client=%v\n", runErr)
		return 1
	}
	return 0
}

// helperClient is the confined command: it prints check=result lines.
func helperClient() int {
	dir := os.Getenv(dirEnv)
	say := func(k string, v any) { fmt.Printf("%s=%v\n", k, v) }
	say("abs-okay", dialUnix(dir+"/okay/s.sock"))
	say("abs-host", dialUnix(dir+"/host/s.sock"))
	say("link-to-host", dialUnix(dir+"/okay/link.sock"))
	say("dotdot-to-host", dialUnix(dir+"/okay/../host/s.sock"))
	say("missing", dialUnix(dir+"/okay/missing.sock"))
	say("abstract", dialUnix("@"+os.Getenv(abstractEnv)))
	say("tcp", dialTCP(os.Getenv(tcpEnv)))
	say("not-a-socket", connectPipe())
	say("dgram-okay", sendDgram(dir+"/okay/d.sock"))
	say("dgram-host", sendDgram(dir+"/host/d.sock"))
	if err := os.Chdir(dir); err == nil {
		say("rel-okay", dialUnix("okay/s.sock"))
		say("rel-host", dialUnix("host/s.sock"))
	}
	okay, refused, denied := race(dir)
	say("race-okay", okay)
	say("race-host", refused)
	say("race-eacces", denied)
	return 0
}

// dialUnix connects by raw syscall and returns the peer's name byte, or
// the errno name.
func dialUnix(path string) string {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return "socket:" + err.Error()
	}
	defer unix.Close(fd)
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		return errName(err)
	}
	return readByte(fd)
}

func readByte(fd int) string {
	b := make([]byte, 1)
	if n, err := unix.Read(fd, b); n != 1 {
		return "read:" + errName(err)
	}
	return string(b)
}

func dialTCP(addr string) string {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return errName(err)
	}
	defer c.Close()
	b := make([]byte, 1)
	if _, err := c.Read(b); err != nil {
		return "read:" + errName(err)
	}
	return string(b)
}

func connectPipe() string {
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil {
		return err.Error()
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	return errName(unix.Connect(p[0], &unix.SockaddrUnix{Name: "/x"}))
}

func sendDgram(path string) string {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err.Error()
	}
	defer unix.Close(fd)
	return errName(unix.Sendto(fd, []byte("hello"), 0, &unix.SockaddrUnix{Name: path}))
}

// race connects again and again from one thread while another rewrites
// the address between okay/s.sock and host/s.sock (same length). A check
// that let the kernel re-read the address afterwards would sometimes reach
// the host socket; the supervisor must never.
func race(dir string) (okay, host, denied int) {
	a, b := unixSockaddr(dir+"/okay/s.sock"), unixSockaddr(dir+"/host/s.sock")
	buf := make([]byte, len(a))
	copy(buf, a)
	var stop atomic.Bool
	flipped := make(chan struct{})
	go func() {
		defer close(flipped)
		for i := 0; !stop.Load(); i++ {
			if i%2 == 0 {
				copy(buf, b)
			} else {
				copy(buf, a)
			}
		}
	}()
	// At least raceRounds, and on until two outcomes were seen (proof that
	// the rewriting thread really raced), within a bound.
	for i := 0; i < 10*raceRounds && (i < raceRounds || mixed(okay, host, denied) < 2); i++ {
		switch r := rawDial(buf); r {
		case "A":
			okay++
		case "R":
			host++
		case "EACCES":
			denied++
		}
	}
	stop.Store(true)
	<-flipped
	return okay, host, denied
}

func mixed(counts ...int) int {
	n := 0
	for _, c := range counts {
		if c > 0 {
			n++
		}
	}
	return n
}

func rawDial(addr []byte) string {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err.Error()
	}
	defer unix.Close(fd)
	_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(&addr[0])), uintptr(len(addr)))
	if e != 0 {
		return errName(e)
	}
	return readByte(fd)
}

func errName(err error) string {
	var e unix.Errno
	if errors.As(err, &e) {
		return unix.ErrnoName(e)
	}
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// scene starts the listeners and returns the helper environment plus the
// host datagram socket, to check afterwards what reached it.
func scene(t *testing.T) ([]string, *net.UnixConn) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"okay", "host"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	serve(t, "unix", dir+"/okay/s.sock", "A")
	serve(t, "unix", dir+"/host/s.sock", "R")
	if err := os.Symlink(dir+"/host/s.sock", dir+"/okay/link.sock"); err != nil {
		t.Fatal(err)
	}
	abstract := fmt.Sprintf("ringfence-seccomp-test-%d", os.Getpid())
	serve(t, "unix", "@"+abstract, "B")
	tcp := serve(t, "tcp", "127.0.0.1:0", "T")
	listenDgram(t, dir+"/okay/d.sock")
	hostDgram := listenDgram(t, dir+"/host/d.sock")
	env := []string{dirEnv + "=" + dir, tcpEnv + "=" + tcp, abstractEnv + "=" + abstract}
	return env, hostDgram
}

func serve(t *testing.T, network, addr, name string) string {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte(name))
			c.Close()
		}
	}()
	return l.Addr().String()
}

func listenDgram(t *testing.T, path string) *net.UnixConn {
	t.Helper()
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// received reports whether anything arrived on c by now.
func received(c *net.UnixConn) bool {
	_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	_, err := c.Read(make([]byte, 16))
	return err == nil
}

func TestSuperviseUnix(t *testing.T) {
	needSeccomp(t)
	for _, mode := range []string{"all", "thread"} {
		t.Run(mode, func(t *testing.T) {
			env, hostDgram := scene(t)
			out, ps := spawn(t, "supervisor", append(env, modeEnv+"="+mode)...)
			got := results(out)
			if !ps.Success() {
				t.Fatalf("supervisor helper: %v\n%s", ps, out)
			}
			want := map[string]string{
				"abs-okay": "A", "abs-host": "EACCES", "link-to-host": "EACCES", "dotdot-to-host": "EACCES",
				"missing": "ENOENT", "abstract": "B", "tcp": "T", "not-a-socket": "ENOTSOCK",
				"dgram-okay": "ok", "dgram-host": "EACCES", "rel-okay": "A", "rel-host": "EACCES",
				"race-host": "0", "supervise-return": "true",
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s: got %q, want %q", k, got[k], v)
				}
			}
			if got["race-okay"] == "0" || got["race-eacces"] == "0" {
				t.Errorf("the race never flipped the outcome (okay %s, refused %s): it tested nothing", got["race-okay"], got["race-eacces"])
			}
			if received(hostDgram) {
				t.Errorf("a datagram reached the host socket")
			}
			t.Logf("race: %s connects reached okay/, %s were refused, %s reached host/", got["race-okay"], got["race-eacces"], got["race-host"])
		})
	}
}

func TestSuperviseUnixListenerClosed(t *testing.T) {
	needSeccomp(t)
	env, _ := scene(t)
	out, ps := spawn(t, "closed", append(env, filterEnv+"=unix")...)
	if got := results(out)["connect"]; !ps.Success() || got != "ENOSYS" {
		t.Errorf("connect with the listener closed: %q (%v), want ENOSYS", got, ps)
	}
}

// TestSuperviseUnixControl runs the client unfiltered: every host socket is
// reached, the race included, so the supervised results above are the
// supervisor's doing.
func TestSuperviseUnixControl(t *testing.T) {
	env, hostDgram := scene(t)
	out, ps := spawn(t, "client", env...)
	got := results(out)
	if !ps.Success() {
		t.Fatalf("client helper: %v\n%s", ps, out)
	}
	for k, v := range map[string]string{"abs-host": "R", "link-to-host": "R", "rel-host": "R", "dgram-host": "ok"} {
		if got[k] != v {
			t.Errorf("unfiltered %s: got %q, want %q", k, got[k], v)
		}
	}
	if got["race-host"] == "0" {
		t.Errorf("unfiltered, the rewriting thread never reached host/: the race test could not fail")
	}
	if !received(hostDgram) {
		t.Errorf("unfiltered datagram did not reach the host socket")
	}
}
