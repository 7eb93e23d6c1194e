package linux

import (
	"os"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

func run(t *testing.T, p *policy.Policy, dir string, argv ...string) inittest.Result {
	t.Helper()
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	c, err := prov.Confine(confine.Request{Argv: argv, Dir: dir, Policy: p,
		Env: []string{"PATH=/usr/bin:/bin", "KEPT=yes"}})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// What the command may do, it can: the checks above are not passing
// because nothing works.
func TestAllowedEffects(t *testing.T) {
	e := inittest.NewEnv(t)
	cases := []struct{ name, script string }{
		{"write-root", `echo ok > "$ROOT/new" && mkdir -p "$ROOT/a/b" && mv "$ROOT/new" "$ROOT/a/b/" && rm -r "$ROOT/a"`},
		{"write-tmp", `echo ok > /tmp/x && test -s /tmp/x`},
		{"dev-null", `echo x > /dev/null && head -c 4 /dev/urandom | wc -c | grep -q 4`},
		{"dev-shm", `echo x > /dev/shm/x`},
		{"read-host", `grep -q root /etc/passwd && grep -q victim "$OUT/victim"`},
		{"git-index-lock", `echo x > "$ROOT/.git/index.lock" && rm "$ROOT/.git/index.lock"`},
		{"read-protected", `grep -q core "$ROOT/.git/config"`},
		{"own-unix-socket", py(`import socket,os; p=os.environ['ROOT']+'/s.sock'; l=socket.socket(socket.AF_UNIX); l.bind(p); l.listen(); c=socket.socket(socket.AF_UNIX); c.connect(p)`)},
		{"own-unix-socket-tmp", py(`import socket; l=socket.socket(socket.AF_UNIX); l.bind('/tmp/s.sock'); l.listen(); c=socket.socket(socket.AF_UNIX); c.connect('/tmp/s.sock')`)},
		{"pid-one-is-init", `test "$(cat /proc/1/cmdline | tr '\0' ' ')" != "" && test "$$" != 1`},
		{"env", `test "$KEPT" = yes`},
		{"hostname", `test "$(hostname)" = ringfence`},
		{"no-ctty", `! (exec 3</dev/tty) 2>/dev/null`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := e.Policy(policy.NetDeny)
			res := run(t, p, e.Root, "/bin/sh", "-c", "set -e; export ROOT="+e.Root+" OUT="+e.Outside+"; "+c.script)
			if res.Code != 0 {
				t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
			}
		})
	}
}

func py(src string) string { return "/usr/bin/python3 -c \"" + src + "\"" }

func TestLoopbackWorksInside(t *testing.T) {
	e := inittest.NewEnv(t)
	script := py(`import socket; l=socket.socket(); l.bind(('127.0.0.1',0)); l.listen(); c=socket.create_connection(l.getsockname(), 2)`)
	if res := run(t, e.Policy(policy.NetLoopback), e.Root, "/bin/sh", "-c", script); res.Code != 0 {
		t.Fatalf("loopback inside the sandbox: exit %d, %s", res.Code, res.Stderr)
	}
	if res := run(t, e.Policy(policy.NetDeny), e.Root, "/bin/sh", "-c", script); res.Code == 0 {
		t.Fatalf("under deny even the sandbox's own loopback must be down")
	}
}

func TestStatusChannel(t *testing.T) {
	e := inittest.NewEnv(t)
	p := e.Policy(policy.NetDeny)
	cases := []struct {
		name   string
		argv   []string
		code   int
		reason string
		signal string
	}{
		{"exit-code", []string{"/bin/sh", "-c", "exit 7"}, 7, "", ""},
		{"exit-127-is-the-commands", []string{"/bin/sh", "-c", "exit 127"}, 127, "", ""},
		{"signal", []string{"/bin/sh", "-c", "kill -KILL $$"}, 128 + 9, "", "SIGKILL"},
		{"not-found", []string{"no-such-program-ringfence"}, 125, status.NotFound, ""},
		{"not-found-path", []string{"/nonexistent/prog"}, 125, status.NotFound, ""},
		{"not-executable", []string{e.Root + "/file"}, 125, status.NotExecutable, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, p, e.Root, c.argv...)
			if res.Code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", res.Code, c.code, res.Stderr)
			}
			if c.reason != "" {
				if res.Status.Failure == nil || res.Status.Failure.Reason != c.reason || res.Status.Started {
					t.Fatalf("status %+v, want failed/%s", res.Status, c.reason)
				}
				return
			}
			if !res.Status.Started || res.Status.Exit == nil {
				t.Fatalf("status %+v, want started and exited", res.Status)
			}
			if c.signal != "" && res.Status.Exit.Signal != c.signal {
				t.Errorf("signal %q, want %q", res.Status.Exit.Signal, c.signal)
			}
			if c.signal == "" && (res.Status.Exit.ExitCode == nil || *res.Status.Exit.ExitCode != c.code) {
				t.Errorf("exit record %+v, want code %d", res.Status.Exit, c.code)
			}
		})
	}
}

func TestWorkingDirectory(t *testing.T) {
	e := inittest.NewEnv(t)
	res := run(t, e.Policy(policy.NetDeny), e.Root+"/.git", "/bin/pwd")
	if strings.TrimSpace(res.Stdout) != e.Root+"/.git" {
		t.Fatalf("pwd %q", res.Stdout)
	}
}

func TestRefusesToConfineNothing(t *testing.T) {
	prov := New(Options{ForceUnavailable: "simulated"})
	_, err := prov.Confine(confine.Request{Argv: []string{"/bin/true"}, Policy: &policy.Policy{Mode: policy.DangerFullAccess}})
	if err != confine.ErrNotConfining {
		t.Fatalf("danger-full-access: %v, want ErrNotConfining", err)
	}
	_, err = prov.Confine(confine.Request{Argv: []string{"/bin/true"}, Policy: &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/x"}})
	if err == nil || !strings.Contains(err.Error(), "simulated") {
		t.Fatalf("unavailable backend confined: %v", err)
	}
}

// Under an allow-list baseline only what the policy grants exists.
func TestAllowListBaseline(t *testing.T) {
	e := inittest.NewEnv(t)
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: e.Root, Baseline: policy.Deny}
	for _, r := range []string{"/usr", "/bin", "/lib", "/lib64"} {
		p.Layers = append(p.Layers, policy.Layer{Path: r, Access: policy.Read, Origin: policy.FromDeployment})
	}
	p.Layers = append(p.Layers, policy.Layer{Path: e.Root, Access: policy.Write, Origin: policy.FromMode})
	policy.SortLayers(p.Layers)
	script := `set -e; echo ok > "$ROOT/w"; ls /usr/bin >/dev/null; test ! -e /etc/passwd; test ! -e "$OUT/victim"; ! echo x > /newfile`
	res := run(t, p, e.Root, "/bin/sh", "-c", "ROOT="+e.Root+" OUT="+e.Outside+"; "+script)
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	// The same checks fail unconfined: /etc/passwd and the victim exist.
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Fatal(err)
	}
}
