package bwrap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/homestate"
	"github.com/ringfence/ringfence/policy"
)

func runReq(t *testing.T, p confine.Provider, req confine.Request) result {
	t.Helper()
	if req.Env == nil {
		req.Env = []string{"PATH=/usr/bin:/bin"}
	}
	cmd, err := p.Confine(req)
	if err != nil {
		t.Fatal(err)
	}
	return supervise(t, cmd, "")
}

func shc(script string) []string { return []string{"/bin/sh", "-c", "set -e; " + script} }

// Under a mount path the workspace is there and only there: the command
// starts in it, writes through it reach the workspace, and the real path
// shows nothing.
func TestMountPath(t *testing.T) {
	p := provider(t)
	base, err := os.MkdirTemp("/var/tmp", "ringfence-bwrap-view-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	root := base + "/ws"
	if err := os.MkdirAll(root+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(root+"/go.mod", []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []policy.Mode{policy.WorkspaceWrite, policy.ReadOnly} {
		pol := &policy.Policy{Mode: mode, Root: root, Baseline: policy.Read}
		write := `! touch /workspace/x`
		if mode == policy.WorkspaceWrite {
			pol.Layers = []policy.Layer{{Path: root, Access: policy.Write}}
			write = `echo new > /workspace/new`
		}
		r := runReq(t, p, confine.Request{Policy: pol, Dir: root + "/sub", MountPath: "/workspace",
			Argv: shc(`test "$(pwd)" = /workspace/sub; grep -q module /workspace/go.mod; ` + write + `; ! ls ` + root + `/go.mod; ! touch ` + root + `/y`)})
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s %s", mode, r.code, r.stdout, r.stderr)
		}
	}
	if b, err := os.ReadFile(root + "/new"); err != nil || string(b) != "new\n" {
		t.Fatalf("write through the mount path: %q %v", b, err)
	}
	if _, err := os.Lstat(root + "/y"); err == nil {
		t.Fatal("a write at the real path reached the host")
	}
}

// A workspace and named paths under /tmp are visible in the private /tmp.
func TestTmpPathsVisible(t *testing.T) {
	p := provider(t)
	base, err := os.MkdirTemp("/tmp", "ringfence-bwrap-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	root, ro := base+"/ws", base+"/ro"
	for _, d := range []string{root, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(d+"/f", []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pol := &policy.Policy{Mode: policy.ReadOnly, Root: root, Baseline: policy.Read,
		Layers: []policy.Layer{{Path: ro, Access: policy.Read, Origin: policy.FromDeployment}}}
	r := runReq(t, p, confine.Request{Policy: pol, Dir: root, Argv: shc(`grep -q data f; grep -q data ` + ro + `/f; ! touch f; ! touch ` + ro + `/x`)})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// A bounded /tmp and /dev/shm end in ENOSPC; the control fits without it.
func TestScratchBounded(t *testing.T) {
	p := provider(t)
	for _, dir := range []string{"/tmp", "/dev/shm"} {
		pol := workspace(t, policy.NetDeny)
		fill := shc(`dd if=/dev/zero of=` + dir + `/fill bs=1M count=8 2>&1`)
		if r := runReq(t, p, confine.Request{Policy: pol, Argv: fill}); r.code != 0 {
			t.Fatalf("control %s: exit %d: %s", dir, r.code, r.stdout+r.stderr)
		}
		pol.Limits.ScratchBytes = 1 << 20
		if r := runReq(t, p, confine.Request{Policy: pol, Argv: fill}); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "No space left") {
			t.Fatalf("8 MiB into a 1 MiB %s: exit %d: %s", dir, r.code, r.stdout+r.stderr)
		}
	}
}

// bwrap 0.8 has no overlay: home stays read-only, the caches point at the
// workspace's private cache (writable, warm on the next run), ringfence's
// state is hidden, and the reasons say so.
func TestHomeFallback(t *testing.T) {
	p := provider(t)
	pol := workspace(t, policy.NetDeny)
	home := t.TempDir()
	if err := os.WriteFile(home+"/.bashrc", []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(home, ".local/state/ringfence")
	l, err := homestate.Prepare(state, pol.Root)
	if err != nil {
		t.Fatal(err)
	}
	other, err := homestate.Prepare(state, "/other/ws")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other.Cache+"/secret", []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &confine.Home{Dir: home, Upper: l.Upper, Work: l.Work, Cache: l.Cache, Hide: []string{state}}
	env := []string{"PATH=/usr/local/go/bin:/usr/bin:/bin", "HOME=" + home}
	r := runReq(t, p, confine.Request{Policy: pol, Env: env, Home: h,
		Argv: shc(`mkdir -p "$GOCACHE"; echo x > "$GOCACHE/x"; ! echo p >> "$HOME/.bashrc"; ! cat ` + other.Cache + `/secret`)})
	if r.code != 0 || strings.Contains(r.stdout, "s3cret") {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(strings.Join(r.cmd.Enforcement.Reasons, "\n"), "GOCACHE") {
		t.Fatalf("reasons: %q", r.cmd.Enforcement.Reasons)
	}
	if _, err := os.Stat(l.Cache + "/go-build/x"); err != nil {
		t.Fatalf("the cache write did not land in the private cache: %v", err)
	}
	if b, _ := os.ReadFile(home + "/.bashrc"); string(b) != "orig\n" {
		t.Fatalf("the real home changed: %q", b)
	}
}
