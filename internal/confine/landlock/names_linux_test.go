package landlock

import (
	"os"
	"os/exec"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/policy"
)

// TestGitFromNothing: real git works in a workspace without a .git under
// the name guard, with the guard's acting threads in the command's
// Landlock domain (the name attacks are in TestAttacks).
func TestGitFromNothing(t *testing.T) { inittest.GitFromNothing(t, confineScript) }

// TestReadOnlyPathsHeldByGuard: a read-only path inside the workspace is
// held by the seccomp guard (no per-entry Landlock grant), so files can
// still be made beside it, while every way of changing it is refused —
// each attack first shown to work unconfined.
func TestReadOnlyPathsHeldByGuard(t *testing.T) {
	attacks := []struct{ name, script string }{
		{"write", `echo pwn >> "$ROOT/work/ro/f"`},
		{"truncate", `truncate -s 0 "$ROOT/work/ro/f"`},
		{"create inside", `echo pwn > "$ROOT/work/ro/new"`},
		{"remove", `rm "$ROOT/work/ro/f"`},
		{"rename away", `mv "$ROOT/work/ro/f" "$ROOT/work/stolen"`},
		{"rename ancestor", `mv "$ROOT/work" "$ROOT/w2" && echo pwn >> "$ROOT/w2/ro/f"`},
		{"hard link", `ln "$ROOT/work/ro/f" "$ROOT/h" && echo pwn >> "$ROOT/h"`},
		{"rename onto", `echo pwn > "$ROOT/x" && mv "$ROOT/x" "$ROOT/work/ro/f"`},
		{"write via /proc/self/fd", `exec 3<"$ROOT/work/ro/f"; echo pwn >> /proc/self/fd/3`},
	}
	setup := func(t *testing.T) (*inittest.Env, *policy.Policy) {
		e := inittest.NewEnv(t)
		if err := os.MkdirAll(e.Root+"/work/ro", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(e.Root+"/work/ro/f", []byte("keep\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := e.Policy(policy.NetDeny)
		p.Layers = append(p.Layers, policy.Layer{Path: e.Root + "/work/ro", Access: policy.Read, Origin: policy.FromDeployment})
		policy.SortLayers(p.Layers)
		return e, p
	}
	intact := func(e *inittest.Env) bool {
		data, err := os.ReadFile(e.Root + "/work/ro/f")
		_, newErr := os.Stat(e.Root + "/work/ro/new")
		return err == nil && string(data) == "keep\n" && newErr != nil
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			e, _ := setup(t)
			cmd := exec.Command("/bin/sh", "-c", a.script)
			cmd.Env = e.Vars()
			_ = cmd.Run()
			if intact(e) {
				t.Fatalf("control: the attack does not work unconfined")
			}
			e, p := setup(t)
			res := confineScript(t, e, p, a.script, nil)
			if !res.Status.Started {
				t.Fatalf("not started: %+v %s", res.Status, res.Stderr)
			}
			if !intact(e) {
				t.Fatalf("read-only path changed (stderr %q)", res.Stderr)
			}
		})
	}
	e, p := setup(t)
	res := confineScript(t, e, p, `echo a > "$ROOT/new" && echo b > "$ROOT/work/beside" && cat "$ROOT/work/ro/f"`, nil)
	if res.Code != 0 || res.Stdout != "keep\n" {
		t.Fatalf("ordinary work beside a read-only path failed (exit %d): %s", res.Code, res.Stderr)
	}
}
