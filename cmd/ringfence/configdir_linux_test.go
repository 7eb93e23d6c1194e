//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// configAttacks are what a sandboxed command tries against the ringfence
// config dir when the workspace is the whole home: rewrite the trust
// store or the user policy (trusted by definition), read them (the dir
// may hold tokens), or move the dir or a parent away and make its own.
var configAttacks = []struct{ name, script string }{
	{"write trust store", `echo '{"files":[{"path":"/x","sha256":"y"}]}' > .config/ringfence/trusted.json`},
	{"write user policy", `echo 'mode = "danger-full-access"' > .config/ringfence/policy.toml`},
	{"read user policy", `cat .config/ringfence/policy.toml`},
	{"rename the dir", `mv .config/ringfence .config/rf2`},
	{"rename a parent and replace", `mv .config .config2 && mkdir -p .config/ringfence && echo 'mode = "danger-full-access"' > .config/ringfence/policy.toml`},
	{"remove the store", `rm -f .config/ringfence/trusted.json`},
}

const policyMarker = "# the user's own policy, marker-7f3a\n"

func setUpConfig(t *testing.T, home string) {
	t.Helper()
	os.RemoveAll(filepath.Join(home, ".config"))
	os.RemoveAll(filepath.Join(home, ".config2"))
	writeFile(t, filepath.Join(home, ".config", "ringfence", "policy.toml"), policyMarker)
	writeFile(t, filepath.Join(home, ".config", "ringfence", "trusted.json"), `{"files":[]}`)
	must(t, os.Chmod(filepath.Join(home, ".config", "ringfence", "trusted.json"), 0o600))
}

func configIntact(home string) bool {
	p, _ := os.ReadFile(filepath.Join(home, ".config", "ringfence", "policy.toml"))
	s, _ := os.ReadFile(filepath.Join(home, ".config", "ringfence", "trusted.json"))
	return string(p) == policyMarker && string(s) == `{"files":[]}` && !exists(filepath.Join(home, ".config2"))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The trust store and the user's policy live outside the workspace and
// the sandbox cannot reach them — even when the workspace is the home
// itself — on every backend, as root and (TestConfigDirNonRoot) as an
// unprivileged user. Each attack's unconfined control (danger-full-access)
// shows it would work.
func TestConfigDirUnreachableInside(t *testing.T) {
	for _, backend := range []string{"linux", "bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			needBackend(t, backend)
			home := userHome(t)
			for _, a := range configAttacks {
				setUpConfig(t, home)
				code, stdout, _ := cli(t, home, "", "run", "-q", "--backend", backend, "--", "sh", "-c", a.script)
				// Judged by effect: on a backend that masks the dir, rm -f of
				// what it cannot see "succeeds" and changes nothing.
				if !configIntact(home) || strings.Contains(stdout, "marker-7f3a") {
					t.Errorf("%s: exit %d, config intact %v, output %q", a.name, code, configIntact(home), stdout)
				}
				setUpConfig(t, home)
				code, stdout, _ = cli(t, home, "", "run", "-q", "--mode", "danger-full-access", "--", "sh", "-c", a.script)
				if code != 0 || (configIntact(home) && !strings.Contains(stdout, "marker-7f3a")) {
					t.Errorf("%s: the unconfined control did not succeed (exit %d)", a.name, code)
				}
			}
			// No config dir yet: the sandbox must not create one.
			os.RemoveAll(filepath.Join(home, ".config"))
			code, _, _ := cli(t, home, "", "run", "-q", "--backend", backend, "--", "sh", "-c",
				`mkdir -p .config/ringfence && echo 'mode = "danger-full-access"' > .config/ringfence/policy.toml`)
			if exists(filepath.Join(home, ".config", "ringfence", "policy.toml")) {
				t.Errorf("created a config dir: exit %d", code)
			}
		})
	}
}

// TestConfigDirNonRoot runs the config-dir attacks, the planted policy
// file and the secrets check again as an unprivileged user.
func TestConfigDirNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestConfigDirUnreachableInside|TestPlantedWorkspacePolicyIsRefused|TestRunKeepsSecretsOut)$")
}
