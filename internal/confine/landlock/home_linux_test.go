package landlock

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/homestate"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

func TestHomeEnv(t *testing.T) {
	env, set := confine.CacheEnv([]string{"PATH=/bin", "GOCACHE=/mine"}, "/s/cache")
	want := []string{"PATH=/bin", "GOCACHE=/mine", "XDG_CACHE_HOME=/s/cache", "npm_config_cache=/s/cache/npm",
		"YARN_CACHE_FOLDER=/s/cache/yarn", "PIP_CACHE_DIR=/s/cache/pip"}
	if d := cmp.Diff(want, env); d != "" {
		t.Fatalf("env (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"XDG_CACHE_HOME", "npm_config_cache", "YARN_CACHE_FOLDER", "PIP_CACHE_DIR"}, set); d != "" {
		t.Fatalf("set (-want +got):\n%s", d)
	}
}

// Without a mount namespace home stays read-only; the cache variables
// point at the workspace's private cache, which works (go env, a build
// cache write) and is warm on the next run; the real home is unchanged;
// other layers in the state directory stay unreadable; and the reasons
// say all of it.
func TestHomeCacheRedirect(t *testing.T) {
	prov := New(Options{})
	testenv.Need(t, "landlock backend", prov.Available())
	e := inittest.NewEnv(t)
	home := filepath.Join(filepath.Dir(e.Root), "home")
	state := filepath.Join(home, ".local/state/ringfence")
	if err := os.MkdirAll(home+"/.cache", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(home+"/.bashrc", []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := homestate.Prepare(state, "/some/other/ws")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other.Cache+"/secret", []byte(inittest.Secret), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := homestate.Prepare(state, e.Root)
	if err != nil {
		t.Fatal(err)
	}
	h := &confine.Home{Dir: home, Upper: l.Upper, Work: l.Work, Cache: l.Cache, Hide: []string{state}}
	run := func(script string) (int, string) {
		p := e.Policy(policy.NetDeny)
		c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script}, Dir: e.Root + "/work", Policy: p,
			Env: []string{"PATH=/usr/local/go/bin:/usr/bin:/bin", "HOME=" + home}, Home: h, MountPath: "/workspace"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(c.Enforcement.Reasons, "\n"), "GOCACHE") ||
			!strings.Contains(strings.Join(c.Enforcement.Reasons, "\n"), "not at /workspace") {
			t.Fatalf("reasons do not say what was done: %q", c.Enforcement.Reasons)
		}
		res, err := inittest.Run(c, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Code, res.Stdout + res.Stderr
	}
	if code, out := run(`set -e; test "$GOCACHE" = ` + l.Cache + `/go-build; mkdir -p "$GOCACHE"; echo x > "$GOCACHE/x";
		mkdir -p "$npm_config_cache"; echo x > "$npm_config_cache/x"; ! echo planted >> "$HOME/.bashrc"`); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if code, out := run(`set -e; test -f "$GOCACHE/x"; ! cat ` + other.Cache + `/secret; ! touch ` + other.Cache + `/x`); code != 0 || strings.Contains(out, inittest.Secret) {
		t.Fatalf("second run: exit %d: %s", code, out)
	}
	if b, _ := os.ReadFile(home + "/.bashrc"); string(b) != "orig\n" {
		t.Fatalf("real home changed: %q", b)
	}
	if _, err := exec.LookPath("/usr/local/go/bin/go"); err == nil {
		if code, out := run(`set -e; test "$(go env GOCACHE)" = "$GOCACHE"`); code != 0 {
			t.Fatalf("go env: exit %d: %s", code, out)
		}
	}
}

func TestHomeCacheAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestHomeCacheRedirect$")
}
