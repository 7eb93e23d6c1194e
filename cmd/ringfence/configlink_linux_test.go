//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// linkedConfigs are config dirs a dotfile manager links into a dotfiles
// repository (GNU stow folds a whole directory into one link), with the
// workspace being that repository: the ringfence config then really lives
// inside a write grant, under another name than the one the guard denies.
// Each attack tries to read the user's policy, or to replace it so that the
// next run is unconfined.
var linkedConfigs = []struct {
	name    string
	setUp   func(t *testing.T, home, dots string) // makes ~/.config/ringfence/policy.toml reach into dots
	attacks []string                              // run in dots
}{
	{
		name: "dir linked (stow)",
		setUp: func(t *testing.T, home, dots string) {
			writeFile(t, filepath.Join(dots, "stow", "rf", "policy.toml"), policyMarker)
			must(t, os.MkdirAll(filepath.Join(home, ".config"), 0o755))
			must(t, os.Symlink(filepath.Join(dots, "stow", "rf"), filepath.Join(home, ".config", "ringfence")))
		},
		attacks: []string{
			`cat stow/rf/policy.toml`,
			`echo 'mode = "danger-full-access"' > stow/rf/policy.toml`,
			`mv stow/rf stow/rf2 && mkdir stow/rf && echo 'mode = "danger-full-access"' > stow/rf/policy.toml`,
			`mv stow stow2 && mkdir -p stow/rf && echo 'mode = "danger-full-access"' > stow/rf/policy.toml`,
		},
	},
	{
		name: "file linked",
		setUp: func(t *testing.T, home, dots string) {
			writeFile(t, filepath.Join(dots, "rf", "policy.toml"), policyMarker)
			must(t, os.MkdirAll(filepath.Join(home, ".config", "ringfence"), 0o755))
			must(t, os.Symlink(filepath.Join(dots, "rf", "policy.toml"), filepath.Join(home, ".config", "ringfence", "policy.toml")))
		},
		attacks: []string{
			`cat rf/policy.toml`,
			`echo 'mode = "danger-full-access"' > rf/policy.toml`,
			`mv rf/policy.toml rf/old && echo 'mode = "danger-full-access"' > rf/policy.toml`,
			`mv rf rf2 && mkdir rf && echo 'mode = "danger-full-access"' > rf/policy.toml`,
		},
	},
	{
		name: ".config linked, no ringfence dir yet",
		setUp: func(t *testing.T, home, dots string) {
			must(t, os.MkdirAll(filepath.Join(dots, "config"), 0o755))
			must(t, os.Symlink(filepath.Join(dots, "config"), filepath.Join(home, ".config")))
		},
		attacks: []string{
			`mkdir -p config/ringfence && echo 'mode = "danger-full-access"' > config/ringfence/policy.toml`,
			`mv config config2 && mkdir -p config/ringfence && echo 'mode = "danger-full-access"' > config/ringfence/policy.toml`,
		},
	},
}

// userPolicyTaken reports whether the policy ringfence would load next is
// no longer the user's own: read (marker in the output) or replaced.
func userPolicyTaken(home, stdout string) bool {
	p, err := os.ReadFile(filepath.Join(home, ".config", "ringfence", "policy.toml"))
	planted := err == nil && strings.Contains(string(p), "danger-full-access")
	return planted || strings.Contains(stdout, "marker-7f3a")
}

// The guard over the config dir follows links: a config dir (or a user
// policy file, or a parent of the config dir) linked into the workspace is
// as unreachable as one that is not, on every backend, as root and
// (TestConfigDirNonRoot) as an unprivileged user. The unconfined control
// (danger-full-access) shows each attack would take over the next run.
func TestLinkedConfigDirUnreachable(t *testing.T) {
	for _, backend := range []string{"linux", "bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			needBackend(t, backend)
			home := userHome(t)
			dots := filepath.Join(home, "dotfiles")
			for _, lc := range linkedConfigs {
				for _, a := range lc.attacks {
					for _, mode := range []string{"", "danger-full-access"} {
						os.RemoveAll(dots)
						os.RemoveAll(filepath.Join(home, ".config"))
						lc.setUp(t, home, dots)
						args := []string{"run", "-q", "--backend", backend}
						if mode != "" {
							args = []string{"run", "-q", "--mode", mode}
						}
						code, stdout, _ := cli(t, dots, "", append(args, "--", "sh", "-c", a)...)
						taken := userPolicyTaken(home, stdout)
						if mode == "" && taken {
							t.Errorf("%s: %s: the sandbox read or replaced the user policy (exit %d)", lc.name, a, code)
						}
						if mode != "" && (!taken || code != 0) {
							t.Errorf("%s: %s: the unconfined control did not succeed (exit %d)", lc.name, a, code)
						}
					}
				}
			}
		})
	}
}

// TestLinkedConfigDirNonRoot reruns the linked-config attacks as an
// unprivileged user.
func TestLinkedConfigDirNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestLinkedConfigDirUnreachable$")
}
