package landlock

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

func run(t *testing.T, p *policy.Policy, argv ...string) inittest.Result {
	t.Helper()
	prov := New(Options{})
	testenv.Need(t, "landlock backend", prov.Available())
	c, err := prov.Confine(confine.Request{Argv: argv, Policy: p, Env: []string{"PATH=/usr/bin:/bin", "KEPT=yes"}})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// What the command may do, it can.
func TestAllowedEffects(t *testing.T) {
	e := inittest.NewEnv(t)
	cases := []struct{ name, script string }{
		{"write-subdir", `echo ok > "$ROOT/work/new" && mkdir -p "$ROOT/work/a/b" && mv "$ROOT/work/new" "$ROOT/work/a/b/" && rm -r "$ROOT/work/a"`},
		{"write-existing-root-file", `echo more >> "$ROOT/file"`},
		// Reparenting (a link or rename into another directory) is what
		// a Landlock layer refuses unless it grants it: the command's own
		// nested domain must not take it away (EXDEV).
		{"cross-dir-link-rename", `mkdir -p "$ROOT/work/x" "$ROOT/work/y" && echo a > "$ROOT/work/x/f" && ln "$ROOT/work/x/f" "$ROOT/work/y/hl" && python3 -c "import os; os.rename(os.environ['ROOT']+'/work/y', os.environ['ROOT']+'/work/x/y')" && rm -r "$ROOT/work/x"`},
		{"dev-null", `echo x > /dev/null`},
		{"read-host", `grep -q root /etc/passwd && grep -q victim "$OUT/victim"`},
		{"read-protected", `grep -q core "$ROOT/.git/config"`},
		{"own-unix-socket", "/usr/bin/python3 -c \"import socket,os; p=os.environ['ROOT']+'/work/s.sock'; l=socket.socket(socket.AF_UNIX); l.bind(p); l.listen(); c=socket.socket(socket.AF_UNIX); c.connect(p)\""},
		{"env", `test "$KEPT" = yes`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := run(t, e.Policy(policy.NetDeny), "/bin/sh", "-c", "set -e; export ROOT="+e.Root+" OUT="+e.Outside+"; "+c.script)
			if res.Code != 0 {
				t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
			}
		})
	}
}

func TestStatusChannel(t *testing.T) {
	e := inittest.NewEnv(t)
	p := e.Policy(policy.NetDeny)
	if res := run(t, p, "/bin/sh", "-c", "exit 127"); res.Code != 127 || !res.Status.Started || res.Status.Exit == nil {
		t.Fatalf("exit 127 from the command: %+v", res)
	}
	res := run(t, p, "no-such-program-ringfence")
	if res.Status.Started || res.Status.Failure == nil || res.Status.Failure.Reason != status.NotFound {
		t.Fatalf("missing program: %+v", res.Status)
	}
}
