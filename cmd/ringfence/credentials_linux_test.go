package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The user's credential files (policy.CredentialNames) are denied by the
// default profile on every backend: a key, a cloud token or a netrc is not
// the agent's to read. The unconfined control reads every one.
func TestCredentialFilesDeniedByDefault(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	secrets := map[string]string{".ssh/id_ed25519": "rf-ssh-canary", ".aws/credentials": "rf-aws-canary",
		".netrc": "rf-netrc-canary", ".config/gh/hosts.yml": "rf-gh-canary", ".git-credentials": "rf-gitcred-canary"}
	var paths []string
	for rel, v := range secrets {
		p := filepath.Join(home, rel)
		must(t, os.MkdirAll(filepath.Dir(p), 0o700))
		must(t, os.WriteFile(p, []byte(v+"\n"), 0o600))
		paths = append(paths, p)
	}
	script := "cat " + strings.Join(paths, " ") + "; true"
	ws := workspace(t)
	code, out, _ := cli(t, ws, "", "run", "-q", "--mode", "danger-full-access", "--", "sh", "-c", script)
	for _, v := range secrets {
		if code != 0 || !strings.Contains(out, v) {
			t.Fatalf("unconfined control did not read %s (exit %d): %q", v, code, out)
		}
	}
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			needBackend(t, b)
			_, out, errOut := cli(t, ws, "", "run", "-q", "--backend", b, "--", "sh", "-c", script)
			for _, v := range secrets {
				if strings.Contains(out, v) || strings.Contains(errOut, v) {
					t.Errorf("%s: a credential file was readable: %s", b, v)
				}
			}
		})
	}
}
