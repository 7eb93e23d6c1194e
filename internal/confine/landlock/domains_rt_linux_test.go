package landlock

import (
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/policy"
)

// rtProbePy is the red team's second probe: ways to reach an address
// that the first probe (probePy) does not try — the destination carried
// in a msghdr (sendmsg, sendmmsg) with TCP Fast Open, which connects, an
// IPv4-mapped address on an IPv6 socket, and io_uring, whose connect no
// seccomp filter sees. It prints OK:<first bytes> or ERR:<errno>.
const rtProbePy = `
import ctypes, errno, socket, sys
MSG_FASTOPEN = 0x20000000
libc = ctypes.CDLL(None, use_errno=True)
def err(e):
    print("ERR:" + errno.errorcode.get(e.errno, str(e.errno)) if getattr(e, "errno", None) else "ERR:" + repr(e)); sys.exit(1)
def reply(s):
    s.settimeout(2)
    try: print("OK:" + s.recv(16).decode(errors="replace").strip())
    except socket.timeout: print("OK:")
op, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
try:
    if op == "sendmsg-tfo":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.sendmsg([b"x"], [], MSG_FASTOPEN, (host, port)); reply(s)
    elif op == "sendmmsg-tfo":
        class sin(ctypes.Structure):
            _fields_ = [("fam", ctypes.c_ushort), ("port", ctypes.c_ubyte * 2), ("addr", ctypes.c_ubyte * 4), ("pad", ctypes.c_ubyte * 8)]
        class iov(ctypes.Structure):
            _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
        class mmsg(ctypes.Structure):
            _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint), ("iov", ctypes.c_void_p), ("iovlen", ctypes.c_size_t),
                        ("ctl", ctypes.c_void_p), ("ctllen", ctypes.c_size_t), ("flags", ctypes.c_int), ("len", ctypes.c_uint)]
        a = sin(socket.AF_INET, (ctypes.c_ubyte * 2)(port >> 8, port & 255), (ctypes.c_ubyte * 4)(*socket.inet_aton(host)))
        data = ctypes.create_string_buffer(b"x"); v = iov(ctypes.cast(data, ctypes.c_void_p), 1)
        m = mmsg(ctypes.cast(ctypes.pointer(a), ctypes.c_void_p), 16, ctypes.cast(ctypes.pointer(v), ctypes.c_void_p), 1, None, 0, 0, 0)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if libc.sendmmsg(s.fileno(), ctypes.byref(m), 1, MSG_FASTOPEN) < 0:
            e = ctypes.get_errno(); raise OSError(e, "sendmmsg")
        reply(s)
    elif op == "mapped":
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM); s.settimeout(5)
        s.connect(("::ffff:" + host, port)); reply(s)
    elif op == "mapped-tfo":
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        s.sendto(b"x", MSG_FASTOPEN, ("::ffff:" + host, port)); reply(s)
    elif op == "any":        # 0.0.0.0 is this host: the kernel connects it to a local listener
        s = socket.create_connection(("0.0.0.0", port), timeout=5); reply(s)
    elif op == "iouring":    # io_uring_setup: its IORING_OP_CONNECT passes no seccomp filter
        params = ctypes.create_string_buffer(120)
        fd = libc.syscall(425, 4, params)
        if fd < 0:
            e = ctypes.get_errno(); raise OSError(e, "io_uring_setup")
        print("OK:ring")
    else:
        print("ERR:unknown op"); sys.exit(2)
except OSError as e:
    err(e)
`

// TestDomainsRedTeam attacks the proxy-only network with destinations the
// first suite does not name: a "proxy" answers PROXY on 127.0.0.1:P and an
// evil twin EVIL on 127.0.0.2:P (and another server on 0.0.0.0:Q, reached
// by connecting to 0.0.0.0). Every attack works unconfined (the control);
// confined, none may read EVIL or reach Q.
func TestDomainsRedTeam(t *testing.T) {
	e := inittest.NewEnv(t)
	probe := e.Root + "/rtprobe.py"
	if err := os.WriteFile(probe, []byte(rtProbePy), 0o644); err != nil {
		t.Fatal(err)
	}
	serve := func(addr, say string) uint16 {
		l, err := net.Listen("tcp", addr)
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
				c.Write([]byte(say + "\n"))
				c.Close()
			}
		}()
		return uint16(l.Addr().(*net.TCPAddr).Port)
	}
	proxy := serve("127.0.0.1:0", "PROXY")
	serve("127.0.0.2:"+strconv.Itoa(int(proxy)), "EVIL")
	other := serve("0.0.0.0:0", "OTHER")
	pol := e.Policy(policy.NetDomains)
	run := func(argv []string) string {
		t.Helper()
		plan := WithProxy(NewPlan(pol), proxy, proxy)
		spec := &initproc.Spec{Argv: argv, Dir: e.Root, Env: e.Vars(), Landlock: plan.Landlock, Seccomp: plan.Seccomp, Subreaper: true, Nest: true}
		cmd, err := initimage.NewCmdAt(initproc.SelfExe, spec, sysProcAttr())
		if err != nil {
			t.Fatal(err)
		}
		res, err := inittest.Run(cmd, nil)
		if err != nil {
			t.Fatalf("run: %v %s", err, res.Stderr)
		}
		return strings.TrimSpace(res.Stdout)
	}
	for _, c := range []struct {
		op, host string
		port     uint16
		control  string // what the unconfined attack prints
		want     string // what the confined one must print
	}{
		{"sendmsg-tfo", "127.0.0.2", proxy, "OK:EVIL", "ERR:EACCES"},
		{"sendmmsg-tfo", "127.0.0.2", proxy, "OK:EVIL", "ERR:EACCES"},
		{"mapped", "127.0.0.2", proxy, "OK:EVIL", "ERR:EACCES"},
		{"mapped-tfo", "127.0.0.2", proxy, "OK:EVIL", "ERR:EACCES"},
		{"any", "", other, "OK:OTHER", "ERR:EACCES"},
		{"iouring", "", 0, "OK:ring", "ERR:EPERM"},
		// The allowed destination still works each way (the test would
		// otherwise pass on a sandbox that refuses everything).
		{"sendmsg-tfo", "127.0.0.1", proxy, "OK:PROXY", "OK:PROXY"},
		{"sendmmsg-tfo", "127.0.0.1", proxy, "OK:PROXY", "OK:PROXY"},
		{"mapped", "127.0.0.1", proxy, "OK:PROXY", "OK:PROXY"},
	} {
		t.Run(c.op+" "+c.host, func(t *testing.T) {
			argv := []string{"python3", probe, c.op, c.host, strconv.Itoa(int(c.port))}
			if out := unconfined(t, argv); out != c.control {
				t.Fatalf("control (unconfined) printed %q, want %q: the attack proves nothing", out, c.control)
			}
			if out := run(argv); out != c.want {
				t.Fatalf("confined %s to %s:%d printed %q, want %q", c.op, c.host, c.port, out, c.want)
			}
		})
	}
}

func TestDomainsRedTeamNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestDomainsRedTeam$")
}
