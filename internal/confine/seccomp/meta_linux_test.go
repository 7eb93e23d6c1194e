package seccomp

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// The scene for the set-id, metadata, vsock and datagram checks: a temp
// dir holding okay/ (the writable root) and host/ (outside it), with a
// host datagram socket in each and a stream socket in okay/ that the test
// process (outside the "sandbox") listens on.
const (
	metaDirEnv  = "RINGFENCE_META_DIR"
	metaOptsEnv = "RINGFENCE_META_OPTS" // "none", "deny" or "meta"
)

func init() {
	helpers["meta-supervisor"] = helperMetaSupervisor
	helpers["meta-client"] = helperMetaClient
}

// helperMetaSupervisor installs the filter on its locked thread (as the
// init does), supervises from its other threads with the rules the
// landlock backend uses, and runs the client as its child.
func helperMetaSupervisor() int {
	dir := os.Getenv(metaDirEnv)
	okay := func(p string) bool { return strings.HasPrefix(p, dir+"/okay/") || p == dir+"/okay" }
	opts := Options{DenyUnixConnect: true}
	rules := Rules{AllowUnix: okay, PeerInside: PeerDescendant()}
	if os.Getenv(metaOptsEnv) == "meta" {
		opts.GuardMeta, rules.MetaWritable = true, okay
	}
	runtime.LockOSThread()
	l, err := buildInstall(opts, ThisThread)
	if err != nil || l == nil {
		fmt.Printf("install=%v\n", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = Supervise(ctx, l, rules) }()
	return runMetaClient()
}

func runMetaClient() int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=meta-client")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Printf("client=%v\n", err)
		return 1
	}
	return 0
}

// helperMetaClient is the command: each check prints name=result, where
// result is "ok" (and the effect happened) or an errno name.
func helperMetaClient() int {
	dir := os.Getenv(metaDirEnv)
	unix.Umask(0o022)
	for _, c := range metaChecks(dir) {
		fmt.Printf("%s=%s\n", c.name, c.run())
	}
	return 0
}

type metaCheck struct {
	name string
	run  func() string
}

// did turns a syscall error and a follow-up condition into a result.
func did(err error, effect bool) string {
	if err != nil {
		return errName(err)
	}
	if !effect {
		return "no-effect"
	}
	return "ok"
}

func modeBits(p string) uint32 {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return 0
	}
	return st.Mode
}

func fresh(p string) string {
	_ = os.Remove(p)
	_ = os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
	return p
}

func metaChecks(dir string) []metaCheck {
	ok, host := dir+"/okay", dir+"/host"
	return []metaCheck{
		{"vsock", func() string {
			fd, err := unix.Socket(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
			unix.Close(fd)
			return did(err, true)
		}},
		{"vsock-pair", func() string {
			_, err := unix.Socketpair(unix.AF_VSOCK, unix.SOCK_STREAM, 0)
			if err == unix.EOPNOTSUPP { // the family exists, pairs do not: the socket was made
				return "ok"
			}
			return did(err, true)
		}},
		{"chmod-suid", func() string {
			p := fresh(ok + "/suid")
			return did(unix.Chmod(p, 0o4755), modeBits(p)&unix.S_ISUID != 0)
		}},
		{"fchmod-suid", func() string {
			p := fresh(ok + "/fsuid")
			f, _ := os.Open(p)
			defer f.Close()
			return did(unix.Fchmod(int(f.Fd()), 0o4755), modeBits(p)&unix.S_ISUID != 0)
		}},
		{"fchmodat2-suid", func() string {
			p := fresh(ok + "/suid2")
			_, _, e := unix.Syscall6(452, atCWD, str(p), 0o6755, 0, 0, 0)
			return did(errOrNil(e), modeBits(p)&unix.S_ISUID != 0)
		}},
		{"chmod-sgid-file", func() string {
			p := fresh(ok + "/sgid")
			return did(unix.Chmod(p, 0o2755), modeBits(p)&unix.S_ISGID != 0)
		}},
		{"fchmod-sgid-file", func() string {
			p := fresh(ok + "/fsgid")
			f, _ := os.Open(p)
			defer f.Close()
			return did(unix.Fchmod(int(f.Fd()), 0o2755), modeBits(p)&unix.S_ISGID != 0)
		}},
		{"chmod-sgid-dir", func() string {
			p := ok + "/sgid-dir"
			_ = os.Mkdir(p, 0o755)
			return did(unix.Chmod(p, 0o2775), modeBits(p)&unix.S_ISGID != 0)
		}},
		{"fchmod-sgid-dir", func() string {
			p := ok + "/fsgid-dir"
			_ = os.Mkdir(p, 0o755)
			fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				return errName(err)
			}
			defer unix.Close(fd)
			return did(unix.Fchmod(fd, 0o2775), modeBits(p)&unix.S_ISGID != 0)
		}},
		{"sgid-via-link-to-file", func() string {
			p := fresh(ok + "/sgid-target")
			_ = os.Remove(ok + "/sgid-link")
			_ = os.Symlink(p, ok+"/sgid-link")
			return did(unix.Chmod(ok+"/sgid-link", 0o2755), modeBits(p)&unix.S_ISGID != 0)
		}},
		{"chmod-plain", func() string {
			p := fresh(ok + "/plain")
			return did(unix.Chmod(p, 0o700), modeBits(p)&0o777 == 0o700)
		}},
		{"open-creat-suid", func() string {
			p := ok + "/csuid"
			_ = os.Remove(p)
			fd, err := unix.Open(p, unix.O_CREAT|unix.O_WRONLY, 0o4755)
			unix.Close(fd)
			return did(err, modeBits(p)&unix.S_ISUID != 0)
		}},
		{"open-creat-sgid", func() string {
			p := ok + "/csgid"
			_ = os.Remove(p)
			fd, err := unix.Open(p, unix.O_CREAT|unix.O_WRONLY, 0o2755)
			unix.Close(fd)
			return did(err, modeBits(p)&unix.S_ISGID != 0)
		}},
		{"tmpfile-suid", func() string {
			fd, err := unix.Open(ok, unix.O_TMPFILE|unix.O_WRONLY, 0o4755)
			if err != nil {
				return errName(err)
			}
			defer unix.Close(fd)
			var st unix.Stat_t
			_ = unix.Fstat(fd, &st)
			return did(nil, st.Mode&unix.S_ISUID != 0)
		}},
		{"mknod-suid", func() string {
			p := ok + "/nsuid"
			_ = os.Remove(p)
			return did(unix.Mknod(p, unix.S_IFREG|0o4755, 0), modeBits(p)&unix.S_ISUID != 0)
		}},
		{"openat2-creat", func() string {
			p := ok + "/o2"
			_ = os.Remove(p)
			fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{Flags: unix.O_CREAT | unix.O_WRONLY, Mode: 0o4755})
			unix.Close(fd)
			return did(err, modeBits(p)&unix.S_ISUID != 0)
		}},
		{"mkdir-sgid", func() string {
			p := ok + "/mk-sgid"
			_ = os.Remove(p)
			return did(unix.Mkdir(p, 0o2775), true)
		}},
		// metadata outside the writable root
		{"host-chmod", func() string {
			p := host + "/victim"
			return did(unix.Chmod(p, 0o777), modeBits(p)&0o777 == 0o777)
		}},
		{"host-fchmod-readonly-fd", func() string {
			p := host + "/victim2"
			f, err := os.Open(p)
			if err != nil {
				return errName(err)
			}
			defer f.Close()
			return did(unix.Fchmod(int(f.Fd()), 0o777), modeBits(p)&0o777 == 0o777)
		}},
		{"host-chmod-via-link", func() string {
			_ = os.Remove(ok + "/to-host")
			_ = os.Symlink(host+"/victim3", ok+"/to-host")
			return did(unix.Chmod(ok+"/to-host", 0o777), modeBits(host+"/victim3")&0o777 == 0o777)
		}},
		{"host-utimes", func() string {
			p := host + "/victim4"
			ts := []unix.Timespec{{Sec: 1}, {Sec: 1}}
			err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, 0)
			var st unix.Stat_t
			_ = unix.Stat(p, &st)
			return did(err, st.Mtim.Sec == 1)
		}},
		{"host-utimes-legacy", func() string {
			p := host + "/victim5"
			tv := []unix.Timeval{{Sec: 2}, {Sec: 2}}
			err := unix.Utimes(p, tv)
			var st unix.Stat_t
			_ = unix.Stat(p, &st)
			return did(err, st.Mtim.Sec == 2)
		}},
		{"host-setxattr", func() string {
			err := unix.Setxattr(host+"/victim6", "user.rf", []byte("x"), 0)
			return did(err, hasXattr(host+"/victim6", "user.rf"))
		}},
		{"host-chown-own", func() string {
			return did(unix.Chown(host+"/victim7", -1, os.Getgid()), true)
		}},
		{"okay-fchmod-socket", func() string {
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return errName(err)
			}
			defer unix.Close(fd)
			return did(unix.Fchmod(fd, 0o600), true)
		}},
		{"meta-race", func() string { return metaRace(ok, host+"/victim-race") }},
		// the same inside the root: ordinary work
		{"okay-chmod-via-fd", func() string {
			p := fresh(ok + "/fd-plain")
			f, _ := os.Open(p)
			defer f.Close()
			return did(unix.Fchmod(int(f.Fd()), 0o700), modeBits(p)&0o777 == 0o700)
		}},
		{"okay-utimes", func() string {
			p := fresh(ok + "/times")
			ts := []unix.Timespec{{Sec: 3}, {Sec: 3}}
			err := unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, 0)
			var st unix.Stat_t
			_ = unix.Stat(p, &st)
			return did(err, st.Mtim.Sec == 3)
		}},
		{"okay-futimens", func() string {
			p := fresh(ok + "/ftimes")
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			defer f.Close()
			err := unix.Futimes(int(f.Fd()), []unix.Timeval{{Sec: 4}, {Sec: 4}})
			var st unix.Stat_t
			_ = unix.Stat(p, &st)
			return did(err, st.Mtim.Sec == 4)
		}},
		{"okay-setxattr", func() string {
			p := fresh(ok + "/xattr")
			err := unix.Setxattr(p, "user.rf", []byte("x"), 0)
			return did(err, hasXattr(p, "user.rf"))
		}},
		{"okay-removexattr", func() string {
			p := ok + "/xattr"
			return did(unix.Removexattr(p, "user.rf"), !hasXattr(p, "user.rf"))
		}},
		{"okay-chown-own", func() string {
			return did(unix.Lchown(fresh(ok+"/own"), os.Getuid(), os.Getgid()), true)
		}},
		{"okay-lchown-link-to-host", func() string {
			return did(unix.Lchown(ok+"/to-host", os.Getuid(), os.Getgid()), true)
		}},
		// datagrams
		{"dgram-host", func() string { return sendmsgTo(host+"/d.sock", nil) }},
		{"dgram-okay", func() string { return sendmsgTo(ok+"/d.sock", nil) }},
		{"dgram-rights", dgramRights},
		{"sendmmsg-host", func() string { return sendmmsgTo(host + "/d.sock") }},
		{"sendmmsg-okay", func() string { return sendmmsgTo(ok + "/d.sock") }},
		{"stream-sendmsg", streamSendmsg},
		{"dgram-race", func() string { return dgramRace(ok+"/d.sock", host+"/d.sock") }},
		// a host process's stream socket inside the writable root
		{"connect-host-bound", func() string { return dialUnix(ok + "/host-bound.sock") }},
		{"connect-own", func() string { return connectOwn(ok + "/own.sock") }},
		{"dgram-connect-okay", func() string {
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return errName(err)
			}
			defer unix.Close(fd)
			if err := unix.Connect(fd, &unix.SockaddrUnix{Name: ok + "/d.sock"}); err != nil {
				return errName(err)
			}
			_, err = unix.Write(fd, []byte("token"))
			return did(err, true)
		}},
	}
}

func errOrNil(e unix.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

func hasXattr(p, name string) bool {
	_, err := unix.Getxattr(p, name, make([]byte, 16))
	return err == nil
}

// sendmsgTo sends "token" with sendmsg to a path datagram socket from an
// unconnected socket.
func sendmsgTo(path string, rights []int) string {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errName(err)
	}
	defer unix.Close(fd)
	var oob []byte
	if rights != nil {
		oob = unix.UnixRights(rights...)
	}
	return did(unix.Sendmsg(fd, []byte("token"), oob, &unix.SockaddrUnix{Name: path}, 0), true)
}

// sendmmsgTo sends two datagrams in one sendmmsg and checks the count and
// both msg_len fields.
func sendmmsgTo(path string) string {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errName(err)
	}
	defer unix.Close(fd)
	var sa unix.RawSockaddrUnix
	sa.Family = unix.AF_UNIX
	for i := range path {
		sa.Path[i] = int8(path[i])
	}
	data := []byte("token")
	type mmsghdr struct {
		hdr unix.Msghdr
		n   uint32
		_   uint32
	}
	var msgs [2]mmsghdr
	iov := unix.Iovec{Base: &data[0]}
	iov.SetLen(len(data))
	for i := range msgs {
		msgs[i].hdr.Name = (*byte)(unsafe.Pointer(&sa))
		msgs[i].hdr.Namelen = uint32(unsafe.Sizeof(sa))
		msgs[i].hdr.Iov = &iov
		msgs[i].hdr.SetIovlen(1)
	}
	r, _, e := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(fd), uintptr(unsafe.Pointer(&msgs[0])), 2, 0, 0, 0)
	if e != 0 {
		return errName(e)
	}
	if r != 2 || msgs[0].n != 5 || msgs[1].n != 5 {
		return fmt.Sprintf("sent-%d-len-%d-%d", r, msgs[0].n, msgs[1].n)
	}
	return "ok"
}

// metaRace chmods a symlink in the root while another thread swaps it
// between a file in the root and the host victim: a supervisor that
// checked the path and let the kernel look it up again would sometimes
// change the host file. Reports whether the host file's mode changed.
func metaRace(ok, victim string) string {
	mine := fresh(ok + "/race-mine")
	link := ok + "/race-link"
	tmpA, tmpB := ok+"/race-a", ok+"/race-b"
	_ = os.Symlink(mine, tmpA)
	_ = os.Symlink(victim, tmpB)
	_ = os.Symlink(mine, link)
	stop, done := make(chan struct{}), make(chan struct{})
	var flips atomic.Int64
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			// Exchange link with one of the prepared links, atomically.
			_ = unix.Renameat2(unix.AT_FDCWD, []string{tmpA, tmpB}[i%2], unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
			flips.Add(1)
		}
	}()
	counts := map[string]int{}
	// Both loops must overlap: go on until the flipper has run a while
	// and the host file changed, or for 1.5 s (a guarded run; on a loaded
	// machine the two threads may take turns rather than run together).
	deadline := time.Now().Add(1500 * time.Millisecond)
	for i := 0; time.Now().Before(deadline); i++ {
		counts[errName(unix.Chmod(link, uint32(0o600+i%2)))]++
		if i >= raceRounds && flips.Load() >= raceRounds && modeBits(victim)&0o777 != 0o644 {
			break
		}
	}
	close(stop)
	<-done
	changed := modeBits(victim)&0o777 != 0o644
	return fmt.Sprintf("changed:%v,ok:%d,EPERM:%d", changed, counts["ok"], counts["EPERM"])
}

// dgramRace sends datagrams with sendmsg while another thread flips the
// destination's bytes between an allowed and a host socket (paths of equal
// length). Unconfined, both receive; supervised, the host never may.
func dgramRace(okay, host string) string {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errName(err)
	}
	defer unix.Close(fd)
	var sa unix.RawSockaddrUnix
	sa.Family = unix.AF_UNIX
	path := (*[108]byte)(unsafe.Pointer(&sa.Path[0]))
	copy(path[:], okay)
	data := []byte("token")
	iov := unix.Iovec{Base: &data[0]}
	iov.SetLen(len(data))
	h := unix.Msghdr{Name: (*byte)(unsafe.Pointer(&sa)), Namelen: uint32(unsafe.Sizeof(sa)), Iov: &iov}
	h.SetIovlen(1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p := okay
			if i%2 == 1 {
				p = host
			}
			for j := range len(p) { // byte by byte, as a racing thread would
				path[j] = p[j]
			}
		}
	}()
	counts := map[string]int{}
	for range raceRounds {
		_, _, e := unix.Syscall(unix.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&h)), 0)
		counts[errName(errOrNil(e))]++
	}
	close(stop)
	<-done
	return fmt.Sprintf("ok:%d,EACCES:%d,other:%d", counts["ok"], counts["EACCES"], raceRounds-counts["ok"]-counts["EACCES"])
}

// dgramRights passes a descriptor over a socketpair with sendmsg and
// reads it back on the other end: SCM_RIGHTS must still work.
func dgramRights() string {
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errName(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	if err := unix.Sendmsg(p[0], []byte("fd"), unix.UnixRights(int(w.Fd())), nil, 0); err != nil {
		return errName(err)
	}
	buf, oob := make([]byte, 8), make([]byte, 64)
	_, oobn, _, _, err := unix.Recvmsg(p[1], buf, oob, 0)
	if err != nil {
		return errName(err)
	}
	msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
	if len(msgs) != 1 {
		return "no-rights"
	}
	fds, _ := unix.ParseUnixRights(&msgs[0])
	if len(fds) != 1 {
		return "no-rights"
	}
	defer unix.Close(fds[0])
	if _, err := unix.Write(fds[0], []byte("x")); err != nil {
		return errName(err)
	}
	b := make([]byte, 1)
	_, _ = r.Read(b)
	return did(nil, b[0] == 'x')
}

// streamSendmsg sends 3 MiB with one sendmsg over a stream socketpair: a
// supervised send may be short (a stream allows it), never wrong.
func streamSendmsg() string {
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return errName(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i)
	}
	got := make(chan []byte)
	go func() {
		var all []byte
		buf := make([]byte, 1<<16)
		for len(all) < len(data) {
			n, err := unix.Read(p[1], buf)
			if err != nil || n == 0 {
				break
			}
			all = append(all, buf[:n]...)
		}
		got <- all
	}()
	for off := 0; off < len(data); {
		n, err := unix.SendmsgN(p[0], data[off:], nil, nil, 0)
		if err != nil {
			return errName(err)
		}
		off += n
	}
	all := <-got
	return did(nil, string(all) == string(data))
}

// connectOwn listens on path itself (a server the command runs) and
// connects to it: the peer is inside the sandbox.
func connectOwn(path string) string {
	_ = os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return "listen:" + errName(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err == nil {
			_, _ = c.Write([]byte("o"))
			c.Close()
		}
	}()
	return dialUnix(path)
}

type metaScene struct {
	dir          string
	okayD, hostD *counter
	hostStream   net.Listener
}

// counter reads a datagram socket continuously (so its queue never fills)
// and counts what arrives.
type counter struct{ n atomic.Int64 }

func count(c *net.UnixConn) *counter {
	ct := &counter{}
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := c.ReadFrom(buf); err != nil {
				return
			}
			ct.n.Add(1)
		}
	}()
	return ct
}

// newMetaScene builds the directories, victims and host sockets. It lives
// under /var/tmp with modes that let an unprivileged rerun work too.
func newMetaScene(t *testing.T) *metaScene {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "ringfence-meta-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"okay", "host"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "host", "victim-race"), []byte("v\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		name := "victim"
		if i > 0 {
			name += fmt.Sprint(i)
		}
		if err := os.WriteFile(filepath.Join(dir, "host", name), []byte("v\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := &metaScene{dir: dir, okayD: count(listenDgram(t, dir+"/okay/d.sock")), hostD: count(listenDgram(t, dir+"/host/d.sock"))}
	s.hostStream, err = net.Listen("unix", dir+"/okay/host-bound.sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.hostStream.Close() })
	go func() {
		for {
			c, err := s.hostStream.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("h"))
			c.Close()
		}
	}()
	return s
}

func (s *metaScene) run(t *testing.T, helper, opts string) map[string]string {
	t.Helper()
	out, ps := spawn(t, helper, metaDirEnv+"="+s.dir, metaOptsEnv+"="+opts)
	if !ps.Success() {
		t.Fatalf("%s (%s) failed: %v\n%s", helper, opts, ps, out)
	}
	return results(out)
}

// drain reports how many datagrams a socket received (after a moment for
// the last to arrive).
func drain(c *counter) int64 {
	time.Sleep(100 * time.Millisecond)
	return c.n.Load()
}

// TestMetaSupervised runs every check unconfined first (each attack must
// work there, or its refusal would prove nothing), then under the filter
// with the landlock backend's rules (GuardMeta) and with the linux
// backend's (set-id rules only, metadata held by the mount view).
func TestMetaSupervised(t *testing.T) {
	needSeccomp(t)
	s := newMetaScene(t)
	control := s.run(t, "meta-client", "none")
	hostGotControl := drain(s.hostD)
	s2 := newMetaScene(t)
	guarded := s2.run(t, "meta-supervisor", "meta")
	hostGotGuarded := drain(s2.hostD)
	okayGotGuarded := drain(s2.okayD)
	s3 := newMetaScene(t)
	plain := s3.run(t, "meta-supervisor", "deny")

	attacks := map[string]string{ // check → errno when confined
		"vsock": "EAFNOSUPPORT", "vsock-pair": "EAFNOSUPPORT",
		"chmod-suid": "EPERM", "fchmod-suid": "EPERM", "fchmodat2-suid": "EPERM",
		"chmod-sgid-file": "EPERM", "fchmod-sgid-file": "EPERM", "sgid-via-link-to-file": "EPERM",
		"open-creat-suid": "EPERM", "open-creat-sgid": "EPERM", "tmpfile-suid": "EPERM", "mknod-suid": "EPERM",
		"openat2-creat": "ENOSYS",
		"dgram-host":    "EACCES", "sendmmsg-host": "EACCES", "connect-host-bound": "EACCES",
	}
	metaOnly := map[string]string{ // refused only with GuardMeta
		"host-chmod": "EPERM", "host-fchmod-readonly-fd": "EPERM", "host-chmod-via-link": "EPERM",
		"host-utimes": "EPERM", "host-utimes-legacy": "EPERM", "host-setxattr": "EPERM", "host-chown-own": "EPERM",
	}
	ordinary := []string{"chmod-sgid-dir", "fchmod-sgid-dir", "chmod-plain", "mkdir-sgid",
		"okay-chmod-via-fd", "okay-utimes", "okay-futimens", "okay-setxattr", "okay-removexattr",
		"okay-chown-own", "okay-lchown-link-to-host", "dgram-okay", "dgram-rights", "sendmmsg-okay",
		"stream-sendmsg", "connect-own", "dgram-connect-okay", "okay-fchmod-socket"}
	for _, name := range sortedNames(attacks, metaOnly) {
		want, meta := attacks[name], false
		if want == "" {
			want, meta = metaOnly[name], true
		}
		if control[name] != "ok" && !(name == "connect-host-bound" && control[name] == "h") {
			t.Errorf("%s: unconfined %q: the attack does not work, its refusal proves nothing", name, control[name])
		}
		if guarded[name] != want {
			t.Errorf("%s: guarded %q, want %s", name, guarded[name], want)
		}
		if !meta && plain[name] != want {
			t.Errorf("%s: supervised without GuardMeta %q, want %s", name, plain[name], want)
		}
	}
	for _, name := range ordinary {
		wantOK := func(v string) bool { return v == "ok" || v == "o" }
		if !wantOK(control[name]) || !wantOK(guarded[name]) || !wantOK(plain[name]) {
			t.Errorf("%s: ordinary work: unconfined %q, guarded %q, plain %q", name, control[name], guarded[name], plain[name])
		}
	}
	t.Logf("metadata race (symlink swapped under chmod): unconfined %s, guarded %s", control["meta-race"], guarded["meta-race"])
	if !strings.HasPrefix(control["meta-race"], "changed:true") || !strings.HasPrefix(guarded["meta-race"], "changed:false") ||
		strings.Contains(guarded["meta-race"], "ok:0,") || strings.HasSuffix(guarded["meta-race"], "EPERM:0") {
		t.Errorf("metadata race: unconfined %q (host must change), guarded %q (host must not; both outcomes tried)", control["meta-race"], guarded["meta-race"])
	}
	t.Logf("datagram race (%d sends, destination flipping): unconfined %s, guarded %s", raceRounds, control["dgram-race"], guarded["dgram-race"])
	if !strings.HasPrefix(guarded["dgram-race"], "ok:") || strings.HasPrefix(guarded["dgram-race"], "ok:0,") || strings.Contains(guarded["dgram-race"], "EACCES:0,") {
		t.Errorf("datagram race: %q: both destinations must have been tried", guarded["dgram-race"])
	}
	t.Logf("host datagram socket received %d unconfined, %d guarded; own socket %d guarded", hostGotControl, hostGotGuarded, okayGotGuarded)
	if hostGotControl == 0 || hostGotGuarded != 0 || okayGotGuarded == 0 {
		t.Errorf("host datagram socket received: unconfined %v (want true), guarded %v (want false); own socket guarded %v (want true)",
			hostGotControl, hostGotGuarded, okayGotGuarded)
	}
}

func sortedNames(ms ...map[string]string) []string {
	var out []string
	for _, m := range ms {
		for k := range m {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestMetaAsNonRoot: the same checks for a caller that is not root (uid
// 65534), where set-id bits on its own files are as settable unconfined.
func TestMetaAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestMetaSupervised$")
}
