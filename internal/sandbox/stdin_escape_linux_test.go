//go:build linux

package sandbox

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/policy"
)

// stdinPy uses its standard input (moved to descriptor 3 by stdinSh:
// Python refuses to start on a directory as stdin) as what the descriptor
// is, not as bytes: a directory opens a name beneath it ("dir"), a
// read-only file is reopened for writing through /proc/self/fd/3
// ("file"), a connected TCP socket is disconnected (AF_UNSPEC) and
// connected to another address ("socket"). It prints OK:<what it got> or
// ERR:<why>.
const stdinPy = `
import ctypes, os, socket, sys
op = sys.argv[1]
try:
    if op == "dir":
        fd = os.open(sys.argv[2], os.O_RDONLY, dir_fd=3); print("OK:" + os.read(fd, 64).decode().strip())
    elif op == "file":
        with open("/proc/self/fd/3", "w") as f: f.write("pwned\n")
        print("OK:written")
    elif op == "socket":
        s = socket.socket(fileno=3)
        ctypes.CDLL(None).connect(3, (ctypes.c_ubyte * 16)(), 16)
        s.settimeout(5); s.connect(("127.0.0.1", int(sys.argv[2]))); print("OK:" + s.recv(16).decode().strip())
except Exception as e:
    print("ERR:" + repr(e))
`

// stdinSh runs the probe with its stdin on descriptor 3.
const stdinSh = "exec 3<&0 </dev/null; exec python3 \"$0\" \"$@\""

// TestStdinDescriptorEscapes: a caller's *os.File given as Stdin was handed
// to the command as is, and the command used the descriptor rather than
// read it: through a directory it read a denied path (linux, bwrap: the
// descriptor is in the host's mount tree, past the view's masks), through
// a file redirected read-only it wrote the file (bwrap, read-only mode),
// through a TCP socket it reached the host's loopback under network deny
// (every backend). The control runs each probe unconfined with the same
// descriptor. Now only a pipe or /dev/null is handed over; the rest is
// copied through a pipe, and the command still reads the bytes of a file.
func TestStdinDescriptorEscapes(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed for the probe")
	}
	// The probe outside the workspace (which the linux backend shows at
	// another path), the denied directory and the victim inside it.
	host := hostDir(t)
	probe := filepath.Join(hostDir(t), "stdin.py")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(probe, []byte(stdinPy), 0o644))
	secretDir := filepath.Join(host, "outside")
	must(os.MkdirAll(filepath.Join(secretDir, "denied"), 0o755))
	must(os.WriteFile(filepath.Join(secretDir, "denied", "key"), []byte("TOPSECRET\n"), 0o644))
	victim := filepath.Join(host, "victim.txt")
	evil, err := net.Listen("tcp4", "127.0.0.1:0")
	must(err)
	t.Cleanup(func() { evil.Close() })
	go func() {
		for {
			c, err := evil.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("EVIL\n"))
			c.Close()
		}
	}()
	evilPort := strconv.Itoa(evil.Addr().(*net.TCPAddr).Port)
	// connected returns one end of a fresh loopback connection.
	connected := func() *os.File {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		must(err)
		defer l.Close()
		c, err := net.Dial("tcp4", l.Addr().String())
		must(err)
		a, err := l.Accept()
		must(err)
		t.Cleanup(func() { a.Close() })
		f, err := c.(*net.TCPConn).File()
		must(err)
		c.Close()
		return f
	}
	type attack struct {
		name  string
		stdin func() *os.File
		args  []string
		leak  string
		mode  policy.Mode
	}
	attacks := []attack{
		{"directory", func() *os.File { f, err := os.Open(secretDir); must(err); return f }, []string{"dir", "denied/key"}, "OK:TOPSECRET", policy.WorkspaceWrite},
		{"file reopened for writing", func() *os.File {
			must(os.WriteFile(victim, []byte("original\n"), 0o644))
			f, err := os.Open(victim)
			must(err)
			return f
		}, []string{"file"}, "OK:written", policy.ReadOnly},
		{"tcp socket", connected, []string{"socket", evilPort}, "OK:EVIL", policy.WorkspaceWrite},
	}
	for _, a := range attacks {
		t.Run(a.name+" control", func(t *testing.T) {
			in := a.stdin()
			defer in.Close()
			cmd := exec.Command("sh", append([]string{"-c", stdinSh, probe}, a.args...)...)
			cmd.Stdin = in
			out, _ := cmd.Output()
			if got := strings.TrimSpace(string(out)); got != a.leak {
				t.Fatalf("control (unconfined) printed %q, want %q: the attack proves nothing", got, a.leak)
			}
			if b, _ := os.ReadFile(victim); a.name == "file reopened for writing" && string(b) != "pwned\n" {
				t.Fatalf("control (unconfined): the victim file was not written: %q", b)
			}
		})
	}
	for _, backend := range []string{"linux", "bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			for _, a := range attacks {
				t.Run(a.name, func(t *testing.T) {
					d := policy.AgentDefaults()
					d.Mode = a.mode
					d.Entries = []policy.Entry{{Path: filepath.Join(secretDir, "denied"), Access: policy.Deny}}
					// The denied directory inside the workspace: there
					// only the view's mask holds it on linux and bwrap.
					l := newLocal(t, Config{Backend: backend, Root: host, Defaults: d})
					if l.Backend() != backend {
						t.Fatalf("backend %s, want %s", l.Backend(), backend)
					}
					in := a.stdin()
					defer in.Close()
					res, err := l.Exec(context.Background(), append([]string{"sh", "-c", stdinSh, probe}, a.args...), ExecOptions{Stdin: in})
					if err != nil {
						t.Fatal(err)
					}
					got := strings.TrimSpace(res.Stdout)
					if a.name == "file reopened for writing" {
						// Reopening a pipe reaches the same pipe: writing
						// it is harmless; the file is what must not change.
						if b, _ := os.ReadFile(victim); string(b) != "original\n" || got == "" {
							t.Fatalf("the victim file was written through the command's stdin: %q (probe %q, stderr %s)", b, got, res.Stderr)
						}
						return
					}
					if got == a.leak || !strings.HasPrefix(got, "ERR:") {
						t.Fatalf("the command used its stdin descriptor: %q (stderr %s)", got, res.Stderr)
					}
				})
			}
			// Still a file's bytes: a regular file as stdin is read.
			f, err := os.Open(filepath.Join(secretDir, "denied", "key"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			l := newLocal(t, Config{Backend: backend})
			res, err := l.Exec(context.Background(), []string{"cat"}, ExecOptions{Stdin: f})
			if err != nil || res.Stdout != "TOPSECRET\n" {
				t.Fatalf("a file's bytes did not reach the command: %v %q %s", err, res.Stdout, res.Stderr)
			}
		})
	}
}

func TestStdinDescriptorEscapesAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestStdinDescriptorEscapes$")
}
