package linux

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/homestate"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

func runReq(t *testing.T, req confine.Request) inittest.Result {
	t.Helper()
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	if req.Env == nil {
		req.Env = []string{"PATH=/usr/bin:/bin"}
	}
	c, err := prov.Confine(req)
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func sh(script string) []string { return []string{"/bin/sh", "-c", "set -e; " + script} }

// snapshot is every entry under dir (but skip) with its mode and content.
func snapshot(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[p] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fakeHome is a home directory with start-up files, a cache, and a
// denied ~/.ssh; the state directory lives in it, as by default.
type fakeHome struct{ dir, state string }

func newFakeHome(t *testing.T, base string) *fakeHome {
	t.Helper()
	dir := filepath.Join(base, "home")
	for p, c := range map[string]string{".bashrc": "orig\n", ".ssh/id_ed25519": inittest.Secret + "\n",
		".cache/go-build/README": "cache\n", ".gitconfig": "[user]\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &fakeHome{dir: dir, state: filepath.Join(dir, ".local/state/ringfence")}
}

func (h *fakeHome) layer(t *testing.T, root string) *confine.Home {
	t.Helper()
	l, err := homestate.Prepare(h.state, root)
	if err != nil {
		t.Fatal(err)
	}
	return &confine.Home{Dir: h.dir, Upper: l.Upper, Work: l.Work, Cache: l.Cache, Hide: []string{h.state}}
}

func (h *fakeHome) policy(e *inittest.Env) *policy.Policy {
	p := e.Policy(policy.NetDeny)
	p.Layers = append(p.Layers, policy.Layer{Path: h.dir + "/.ssh", Access: policy.Deny, Origin: policy.FromDeployment})
	policy.SortLayers(p.Layers)
	return p
}

// Writes under home land in the private layer: the command sees them, and
// on the next run of the same workspace, and the real home is byte for
// byte unchanged. The denied ~/.ssh and the state directory stay
// unreadable through the overlay. The unconfined control shows that the
// same script does change a home it can reach.
func TestHomeOverlay(t *testing.T) {
	e := inittest.NewEnv(t)
	h := newFakeHome(t, filepath.Dir(e.Root))
	home := h.layer(t, e.Root)
	plant := `echo planted >> "$HOME/.bashrc"; mkdir -p "$HOME/.cache/go-build" "$HOME/.npm" "$HOME/.cargo/bin";
		echo x > "$HOME/.cache/go-build/x"; echo x > "$HOME/.npm/x"; echo x > "$HOME/.cargo/bin/cargo-evil";
		rm "$HOME/.gitconfig"; grep -q planted "$HOME/.bashrc"`
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + h.dir}

	// Control: unconfined, the script changes a copy of the home.
	ctl := filepath.Join(filepath.Dir(e.Root), "ctl")
	if out, err := exec.Command("cp", "-a", h.dir, ctl).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	c := exec.Command("/bin/sh", "-c", "set -e; "+plant)
	c.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + ctl}
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("control: %v %s", err, out)
	}
	if b, _ := os.ReadFile(ctl + "/.bashrc"); !strings.Contains(string(b), "planted") {
		t.Fatalf("control did not change its home: %q", b)
	}

	before := snapshot(t, h.dir, h.state)
	res := runReq(t, confine.Request{Argv: sh(plant), Dir: e.Root, Env: env, Policy: h.policy(e), Home: home})
	if res.Code != 0 {
		t.Fatalf("writes under home: exit %d: %s %+v", res.Code, res.Stderr, res.Status.Failure)
	}
	if d := diffSnap(before, snapshot(t, h.dir, h.state)); d != "" {
		t.Fatalf("the real home changed: %s", d)
	}
	for _, c := range []struct{ name, script string }{
		{"ssh denied", `! cat "$HOME/.ssh/id_ed25519"`},
		{"ssh not listable", `! ls "$HOME/.ssh"`},
		{"state hidden", `! ls ` + h.state + ` && ! ls ` + home.Upper},
		{"state not writable", `! touch ` + h.state + `/x`},
		{"second run is warm", `grep -q planted "$HOME/.bashrc" && test -f "$HOME/.cache/go-build/x" && ! test -e "$HOME/.gitconfig"`},
		{"gitconfig readable in a fresh layer", `true`},
		// The layer's end does not sync the host's filesystem (overlay
		// volatile; initproc.newOverlay).
		{"no host sync", `awk -v h="$HOME" '$2 == h && $3 == "overlay"' /proc/self/mounts | grep -q volatile`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runReq(t, confine.Request{Argv: sh(c.script), Dir: e.Root, Env: env, Policy: h.policy(e), Home: home})
			if res.Code != 0 || strings.Contains(res.Stdout, inittest.Secret) {
				t.Fatalf("exit %d: %s %s", res.Code, res.Stdout, res.Stderr)
			}
		})
	}
	if err := homestate.Clear(h.state, e.Root); err != nil {
		t.Fatalf("clear: %v", err)
	}
	if _, err := os.Stat(home.Upper); !os.IsNotExist(err) {
		t.Fatalf("the layer survived a clear: %v", err)
	}
	home = h.layer(t, e.Root)
	res = runReq(t, confine.Request{Argv: sh(`! grep -q planted "$HOME/.bashrc" && grep -q user "$HOME/.gitconfig"`),
		Dir: e.Root, Env: env, Policy: h.policy(e), Home: home})
	if res.Code != 0 {
		t.Fatalf("after clear the layer is fresh: exit %d: %s", res.Code, res.Stderr)
	}
	if d := diffSnap(before, snapshot(t, h.dir, h.state)); d != "" {
		t.Fatalf("the real home changed: %s", d)
	}
}

// The denied ~/.ssh cannot be reached through the overlay by moving,
// linking or copying it, nor the state directory by copying its parent.
// The control runs the same attacks with ~/.ssh not denied: they do
// reveal the key, so the checks can fail.
func TestHomeOverlayAttacks(t *testing.T) {
	e := inittest.NewEnv(t)
	h := newFakeHome(t, filepath.Dir(e.Root))
	home := h.layer(t, e.Root)
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + h.dir}
	attacks := map[string]string{
		"rename":   `mv ~/.ssh ~/s2; cat ~/s2/id_ed25519 ~/.ssh/id_ed25519`,
		"hardlink": `ln ~/.ssh/id_ed25519 ~/k; cat ~/k`,
		"copy":     `cp -r ~/.ssh ~/c; cat ~/c/id_ed25519`,
		"rename-parent": `mkdir -p ~/.local; mv ~/.local ~/l2; ls -R ~/l2 ~/.local; cat ~/l2/state/ringfence/home/*/upper/* ` +
			home.Upper + `/*`,
		"state-copy": `cp -r ~/.local ~/l3; ls -R ~/l3`,
	}
	// Plant a secret in another workspace's layer: it must stay unreadable.
	other := h.layer(t, "/some/other/ws")
	if err := os.WriteFile(other.Upper+"/planted", []byte(inittest.Secret), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, script := range attacks {
		t.Run(name, func(t *testing.T) {
			res := runReq(t, confine.Request{Argv: []string{"/bin/sh", "-c", script + "; true"}, Dir: e.Root, Env: env,
				Policy: h.policy(e), Home: home})
			if strings.Contains(res.Stdout, inittest.Secret) {
				t.Fatalf("the secret leaked: %s", res.Stdout)
			}
		})
	}
	t.Run("control", func(t *testing.T) {
		fresh := h.layer(t, e.Root+"/work")
		res := runReq(t, confine.Request{Argv: []string{"/bin/sh", "-c", attacks["copy"]}, Dir: e.Root, Env: env,
			Policy: e.Policy(policy.NetDeny), Home: fresh})
		if !strings.Contains(res.Stdout, inittest.Secret) {
			t.Fatalf("control: with ~/.ssh not denied the copy should show the key: %s %s", res.Stdout, res.Stderr)
		}
	})
}

func diffSnap(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "+"+k)
		}
	}
	return strings.Join(out, ", ")
}

// Under a mount path the workspace is there, and only there: the command
// starts in it, reads and writes through it, the protected paths are
// still read-only at their new place, and the real path shows nothing.
func TestMountPath(t *testing.T) {
	e := inittest.NewEnv(t)
	res := runReq(t, confine.Request{Argv: sh(`test "$(pwd)" = /workspace; grep -q data /workspace/file; grep -q data file;
		echo new > /workspace/new; ! touch /workspace/.git/hooks/x; ! echo x >> /workspace/.git/config;
		! ls ` + e.Root + `/file; ! touch ` + e.Root + `/x`), Dir: e.Root, Policy: e.Policy(policy.NetDeny), MountPath: "/workspace"})
	if res.Code != 0 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	if b, err := os.ReadFile(e.Root + "/new"); err != nil || string(b) != "new\n" {
		t.Fatalf("a write through the mount path did not reach the workspace: %q %v", b, err)
	}
	for _, p := range []string{e.Root + "/.git/hooks/x", e.Root + "/x"} {
		if _, err := os.Lstat(p); err == nil {
			t.Fatalf("%s was created", p)
		}
	}
	// A subdirectory as the working directory maps too.
	res = runReq(t, confine.Request{Argv: sh(`test "$(pwd)" = /workspace/work`), Dir: e.Root + "/work",
		Policy: e.Policy(policy.NetDeny), MountPath: "/workspace"})
	if res.Code != 0 {
		t.Fatalf("cwd: exit %d: %s", res.Code, res.Stderr)
	}
}

// A workspace, a read-only path and a writable path under /tmp are all
// visible in the private /tmp, in read-only mode too; the private /tmp
// stays private.
func TestTmpPathsVisible(t *testing.T) {
	base, err := os.MkdirTemp("/tmp", "ringfence-view-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	root, ro, rw := base+"/ws", base+"/ro", base+"/rw"
	for _, d := range []string{root, ro, rw} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(d+"/f", []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mk := func(mode policy.Mode) *policy.Policy {
		p := &policy.Policy{Mode: mode, Root: root, Baseline: policy.Read, Layers: []policy.Layer{
			{Path: ro, Access: policy.Read, Origin: policy.FromDeployment}}}
		if mode == policy.WorkspaceWrite {
			p.Layers = append(p.Layers, policy.Layer{Path: root, Access: policy.Write}, policy.Layer{Path: rw, Access: policy.Write, Origin: policy.FromDeployment})
		}
		policy.SortLayers(p.Layers)
		return p
	}
	res := runReq(t, confine.Request{Argv: sh(`test "$(pwd)" = ` + root + `; grep -q data f; grep -q data ` + ro + `/f; ! touch f; ! touch ` + ro + `/x`),
		Dir: root, Policy: mk(policy.ReadOnly)})
	if res.Code != 0 {
		t.Fatalf("read-only mode: exit %d: %s", res.Code, res.Stderr)
	}
	res = runReq(t, confine.Request{Argv: sh(`grep -q data ` + ro + `/f; ! touch ` + ro + `/x; echo w > ` + rw + `/w; echo p > /tmp/private; echo w > new`),
		Dir: root, Policy: mk(policy.WorkspaceWrite)})
	if res.Code != 0 {
		t.Fatalf("workspace-write: exit %d: %s", res.Code, res.Stderr)
	}
	for p, want := range map[string]bool{rw + "/w": true, root + "/new": true, ro + "/x": false, "/tmp/private": false} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s on the host: %v, want exists=%v", p, err, want)
		}
	}
}

// A bounded private /tmp and /dev/shm end in ENOSPC; the control shows
// the same write fits without the bound.
func TestScratchBounded(t *testing.T) {
	e := inittest.NewEnv(t)
	p := e.Policy(policy.NetDeny)
	fill := `dd if=/dev/zero of=%s/fill bs=1M count=8 2>&1`
	for _, dir := range []string{"/tmp", "/dev/shm"} {
		p.Limits.ScratchBytes = 0
		res := runReq(t, confine.Request{Argv: sh(strings.ReplaceAll(fill, "%s", dir)), Dir: e.Root, Policy: p})
		if res.Code != 0 {
			t.Fatalf("control: 8 MiB into %s with the default size: exit %d: %s", dir, res.Code, res.Stdout+res.Stderr)
		}
		p.Limits.ScratchBytes = 1 << 20
		res = runReq(t, confine.Request{Argv: sh(strings.ReplaceAll(fill, "%s", dir)), Dir: e.Root, Policy: p})
		if res.Code == 0 || !strings.Contains(res.Stdout+res.Stderr, "No space left") {
			t.Fatalf("8 MiB into a 1 MiB %s: exit %d: %s", dir, res.Code, res.Stdout+res.Stderr)
		}
	}
}

func TestViewAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestHomeOverlay|TestHomeOverlayAttacks|TestHomeCacheFallback|TestMountPath|TestMountPathUnderWritableParent|TestTmpPathsVisible|TestScratchBounded)$")
}

// Where the state directory cannot hold an overlay's upper layer (an
// overlayfs container root, nfs), home stays read-only and the caches
// point at the workspace's private cache, bound writable in the private
// /tmp; the reason says so; other workspaces' layers stay hidden.
func TestHomeCacheFallback(t *testing.T) {
	prov := New(Options{NoHomeOverlay: "simulated"})
	testenv.Need(t, "linux backend", prov.Available())
	e := inittest.NewEnv(t)
	h := newFakeHome(t, filepath.Dir(e.Root))
	home := h.layer(t, e.Root)
	other := h.layer(t, "/some/other/ws")
	if err := os.WriteFile(other.Cache+"/planted", []byte(inittest.Secret), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + h.dir}
	c, err := prov.Confine(confine.Request{Argv: sh(`test "$GOCACHE" = ` + HomeCacheView + `/go-build; mkdir -p "$GOCACHE";
		echo x > "$GOCACHE/x"; ! echo p >> "$HOME/.bashrc"; ! cat ` + other.Cache + `/planted`),
		Dir: e.Root, Env: env, Policy: h.policy(e), Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(c.Enforcement.Reasons, "\n"), "GOCACHE") {
		t.Fatalf("reasons: %q", c.Enforcement.Reasons)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 || strings.Contains(res.Stdout, inittest.Secret) {
		t.Fatalf("exit %d: %s %s", res.Code, res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(home.Cache + "/go-build/x"); err != nil {
		t.Fatalf("the cache write did not land in the private cache: %v", err)
	}
	if b, _ := os.ReadFile(h.dir + "/.bashrc"); string(b) != "orig\n" {
		t.Fatalf("the real home changed: %q", b)
	}
}

// Runs of one workspace at the same time share its layer: all start, and
// each sees its own writes. (With one work directory shared, overlayfs
// remade it under a racing mount, which then came up read-only: a run saw
// EROFS on home.) Each run's work directory is gone once it is reaped.
func TestHomeOverlayConcurrent(t *testing.T) {
	e := inittest.NewEnv(t)
	h := newFakeHome(t, filepath.Dir(e.Root))
	home := h.layer(t, e.Root)
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + h.dir}
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	const runs = 6
	errs := make(chan string, runs)
	for i := range runs {
		c, err := prov.Confine(confine.Request{Argv: sh(`sleep 0.3; echo ` + strconv.Itoa(i) + ` > ~/c` + strconv.Itoa(i) +
			`; grep -qx ` + strconv.Itoa(i) + ` ~/c` + strconv.Itoa(i)), Dir: e.Root, Env: env, Policy: h.policy(e), Home: home})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			res, err := inittest.Run(c, nil)
			switch {
			case err != nil:
				errs <- err.Error()
			case res.Code != 0:
				errs <- fmt.Sprintf("exit %d: %s", res.Code, res.Stderr)
			default:
				errs <- ""
			}
		}()
	}
	for range runs {
		if msg := <-errs; msg != "" {
			t.Error(msg)
		}
	}
	left, err := os.ReadDir(home.Work)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range left {
		t.Errorf("a run's work directory was left behind: %s", d.Name())
	}
}

// A disk mounted beneath home cannot be layered (its mount is locked in
// the user namespace, and overlayfs refuses such a lower directory): the
// backend falls back to the cache redirection and says so, instead of
// failing every run. The disk stays visible, read-only; the caches work.
func TestHomeSubmounts(t *testing.T) {
	testenv.NeedRoot(t)
	e := inittest.NewEnv(t)
	h := newFakeHome(t, filepath.Dir(e.Root))
	data := filepath.Join(h.dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", data, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mount: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(data, syscall.MNT_DETACH) })
	if err := os.WriteFile(data+"/file", []byte("on the submount\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	c, err := prov.Confine(confine.Request{Argv: sh(`grep -q "on the submount" ~/data/file; ! echo x > ~/data/new;
		mkdir -p "$GOCACHE"; echo x > "$GOCACHE/x"`),
		Dir: e.Root, Env: []string{"PATH=/usr/bin:/bin", "HOME=" + h.dir}, Policy: h.policy(e), Home: h.layer(t, e.Root)})
	if err != nil {
		t.Fatal(err)
	}
	if r := strings.Join(c.Enforcement.Reasons, "\n"); !strings.Contains(r, "beneath home") || !strings.Contains(r, "GOCACHE") {
		t.Fatalf("reasons: %q", c.Enforcement.Reasons)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != 0 {
		t.Fatalf("exit %d: %s %+v", res.Code, res.Stderr, res.Status.Failure)
	}
	if _, err := os.Stat(data + "/new"); err == nil {
		t.Fatal("a write reached the host's submount")
	}
}
