package landlock

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// probePy tries one network operation and prints OK:<detail> or
// ERR:<errno name>. The same script is the unconfined control and the
// attack inside the sandbox.
const probePy = `
import errno, select, socket, sys
def err(e):
    print("ERR:" + errno.errorcode.get(e.errno, str(e.errno)) if getattr(e, "errno", None) else "ERR:" + repr(e)); sys.exit(1)
op = sys.argv[1]
try:
    if op == "connect":      # blocking connect, then the first bytes
        s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=5)
        s.settimeout(2)
        try: data = s.recv(16)
        except socket.timeout: data = b""
        print("OK:" + data.decode(errors="replace").strip())
    elif op == "connect6":   # an IPv6 socket
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.settimeout(5); s.connect((sys.argv[2], int(sys.argv[3]))); print("OK:" + s.getpeername()[0])
    elif op == "nbconnect":  # non-blocking: EINPROGRESS, then SO_ERROR
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); s.setblocking(False)
        rc = s.connect_ex((sys.argv[2], int(sys.argv[3])))
        if rc not in (0, errno.EINPROGRESS): raise OSError(rc, "connect")
        select.select([], [s], [], 5)
        rc = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if rc: raise OSError(rc, "SO_ERROR")
        print("OK:%s:%d" % s.getpeername())
    elif op == "tfo":        # TCP Fast Open: sendto with an address connects
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.sendto(b"GET / HTTP/1.0\r\n\r\n", 0x20000000, (sys.argv[2], int(sys.argv[3])))
        s.settimeout(2); print("OK:" + s.recv(16).decode(errors="replace").strip())
    elif op == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"token", (sys.argv[2], int(sys.argv[3]))); print("OK:sent")
    elif op == "udp6":
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.sendto(b"token", ("::1", int(sys.argv[3]))); print("OK:sent")
    elif op == "mptcp":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.settimeout(5)
        s.connect((sys.argv[2], int(sys.argv[3]))); print("OK:mptcp")
    elif op == "sctp":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 132); print("OK:sctp")
    elif op == "vsock":
        s = socket.socket(40, socket.SOCK_STREAM); print("OK:vsock")
    elif op == "raw":
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); print("OK:raw")
    elif op == "ping":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP); print("OK:ping")
    elif op == "packet":
        s = socket.socket(17, socket.SOCK_RAW, 0); print("OK:packet")
    elif op == "netlink":
        s = socket.socket(16, socket.SOCK_RAW, 0); print("OK:netlink")
    elif op == "listen":     # an ephemeral port: Landlock's bind rule does not see it
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); s.bind(("127.0.0.1", 0)); s.listen(1)
        print("OK:%d" % s.getsockname()[1])
    elif op == "listen-unbound":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM); s.listen(1); print("OK:%d" % s.getsockname()[1])
    elif op == "listen-unix":  # the sandbox's own unix servers still work
        import os, tempfile
        p = os.path.join(tempfile.mkdtemp(dir=sys.argv[2]), "s")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(p); s.listen(1)
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.connect(p); a, _ = s.accept()
        c.sendall(b"unix-ok"); print("OK:" + a.recv(16).decode())
    elif op == "resolve":
        print("OK:" + socket.gethostbyname(sys.argv[2]))
    else:
        print("ERR:unknown op"); sys.exit(2)
except OSError as e:
    err(e)
`

// The Go helpers run inside the sandbox as the test binary
// (RF_LL_HELPER): Go dials with non-blocking sockets (EINPROGRESS, then
// poll), and the TOCTOU attack needs a second thread rewriting the
// address while connect is in flight, which Python cannot do.
func init() {
	helpers["godial"] = func() {
		c, err := net.DialTimeout("tcp", os.Getenv("RF_LL_ADDR"), 5*time.Second)
		if err != nil {
			fmt.Println("ERR:" + err.Error())
			os.Exit(1)
		}
		fmt.Println("OK:" + c.RemoteAddr().String())
		os.Exit(0)
	}
	helpers["toctou"] = toctouHelper
}

// toctouHelper connects fresh sockets, again and again, with a sockaddr a
// second thread keeps flipping between the proxy's address (allowed) and
// the target's (refused). It prints how many connects reached each peer
// (getpeername: where the kernel really connected) and how many were
// refused. Unsupervised, a check-then-continue race would put some on the
// target; the supervisor connects to the address it checked, so none can.
func toctouHelper() {
	good, _ := net.ResolveTCPAddr("tcp4", os.Getenv("RF_LL_GOOD"))
	bad, _ := net.ResolveTCPAddr("tcp4", os.Getenv("RF_LL_BAD"))
	enc := func(a *net.TCPAddr) [16]byte {
		var b [16]byte
		*(*uint16)(unsafe.Pointer(&b[0])) = unix.AF_INET
		b[2], b[3] = byte(a.Port>>8), byte(a.Port)
		copy(b[4:8], a.IP.To4())
		return b
	}
	gb, bb := enc(good), enc(bad)
	buf := new([16]byte)
	*buf = gb
	var stop atomic.Bool
	go func() {
		for !stop.Load() {
			for i := range buf {
				buf[i] = bb[i]
			}
			for i := range buf {
				buf[i] = gb[i]
			}
		}
	}()
	var toGood, toBad, refused int
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			fmt.Println("ERR:socket " + err.Error())
			os.Exit(1)
		}
		_, _, e := unix.Syscall(unix.SYS_CONNECT, uintptr(fd), uintptr(unsafe.Pointer(buf)), 16)
		if e == 0 {
			sa, _ := unix.Getpeername(fd)
			if in4, ok := sa.(*unix.SockaddrInet4); ok && in4.Port == bad.Port && net.IP(in4.Addr[:]).Equal(bad.IP) {
				toBad++
			} else {
				toGood++
			}
		} else {
			refused++
		}
		unix.Close(fd)
	}
	stop.Store(true)
	fmt.Println("good=" + strconv.Itoa(toGood) + " bad=" + strconv.Itoa(toBad) + " refused=" + strconv.Itoa(refused))
	os.Exit(0)
}

// fmtSscan reads the toctou helper's counts.
func fmtSscan(s string, good, bad, refused *int) (int, error) {
	return fmt.Sscanf(strings.TrimSpace(s), "good=%d bad=%d refused=%d", good, bad, refused)
}
