package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// userHome gives the test a home and config dir of its own, so the trust
// store and the user policy are the test's, never the machine's.
func userHome(t *testing.T) string {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	return home
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// A command (or a repository) plants src/app/.ringfence.toml asking for
// danger-full-access; the user's later `cd src/app && ringfence run` must
// not run unconfined. Trusted, the same file works — the control that the
// refusal is what stopped it — and once changed it is refused again.
func TestPlantedWorkspacePolicyIsRefused(t *testing.T) {
	needBackend(t, "auto")
	userHome(t)
	ws := workspace(t)
	app := filepath.Join(ws, "src", "app")
	planted := filepath.Join(app, ".ringfence.toml")
	writeFile(t, planted, "mode = \"danger-full-access\"\n[network]\nmode = \"allow-all\"\n")
	out := outsideDir(t)
	escape := []string{"run", "--", "sh", "-c", "touch " + out + "/escaped"}

	code, _, errOut := cli(t, app, "", escape...)
	if code != exitPolicy || exists(filepath.Join(out, "escaped")) {
		t.Fatalf("untrusted widening file: exit %d, escaped %v; want %d and nothing run\n%s", code, exists(filepath.Join(out, "escaped")), exitPolicy, errOut)
	}
	for _, want := range []string{"mode danger-full-access (yours: workspace-write)", "network allow-all (yours: deny)", "ringfence policy trust " + planted} {
		if !strings.Contains(errOut, want) {
			t.Errorf("refusal does not say %q:\n%s", want, errOut)
		}
	}

	if code, stdout, errOut := cli(t, app, "", "policy", "trust"); code != 0 || !strings.Contains(stdout, "it widens your policy: mode danger-full-access") {
		t.Fatalf("policy trust: exit %d\n%s%s", code, stdout, errOut)
	}
	code, _, errOut = cli(t, app, "", escape...)
	if code != 0 || !exists(filepath.Join(out, "escaped")) {
		t.Fatalf("trusted file: exit %d, escaped %v (control: trusted, the file's mode applies)\n%s", code, exists(filepath.Join(out, "escaped")), errOut)
	}
	if !strings.Contains(errOut, "warning: policy file "+planted+" sets mode = \"danger-full-access\"") {
		t.Errorf("no danger-full-access warning on stderr: %q", errOut)
	}
	os.Remove(filepath.Join(out, "escaped"))

	// A changed file is no longer trusted.
	writeFile(t, planted, "mode = \"danger-full-access\"\n[network]\nmode = \"allow-all\"\n# edited\n")
	code, _, errOut = cli(t, app, "", escape...)
	if code != exitPolicy || exists(filepath.Join(out, "escaped")) || !strings.Contains(errOut, "changed since you trusted it") {
		t.Fatalf("changed file: exit %d\n%s", code, errOut)
	}
	if _, stdout, _ := cli(t, app, "", "policy", "trust", "--list"); !strings.Contains(stdout, planted) || !strings.Contains(stdout, "changed: not trusted") {
		t.Errorf("trust --list:\n%s", stdout)
	}

	// Trust is by the path the file is found at: a link elsewhere to a
	// trusted file is judged on its own.
	if code, _, _ := cli(t, app, "", "policy", "trust"); code != 0 {
		t.Fatal("re-trust failed")
	}
	other := filepath.Join(ws, "other")
	writeFile(t, filepath.Join(other, "x"), "")
	if err := os.Symlink(planted, filepath.Join(other, ".ringfence.toml")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := cli(t, other, "", escape...); code != exitPolicy || exists(filepath.Join(out, "escaped")) {
		t.Fatalf("link to a trusted file: exit %d\n%s", code, errOut)
	}

	if code, _, _ := cli(t, app, "", "policy", "untrust"); code != 0 {
		t.Fatal("untrust failed")
	}
	if code, _, _ := cli(t, app, "", escape...); code != exitPolicy {
		t.Fatalf("after untrust: exit %d, want %d", code, exitPolicy)
	}
	if code, _, errOut := cli(t, app, "", "policy", "untrust"); code != exitUsage || !strings.Contains(errOut, "is not trusted") {
		t.Fatalf("untrust of an untrusted file: exit %d %q", code, errOut)
	}
	if code, _, _ := cli(t, app, "", "classify", "--", "ls"); code != exitPolicy {
		t.Fatalf("classify with the refused file: exit %d, want %d", code, exitPolicy)
	}
}

// Untrusted, a workspace file still narrows: read-only and a deny entry
// take effect, and explain says how the file was used.
func TestUntrustedWorkspacePolicyNarrows(t *testing.T) {
	needBackend(t, "auto")
	userHome(t)
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "secret", "key"), "k")
	writeFile(t, filepath.Join(ws, ".ringfence.toml"), "mode = \"read-only\"\n[[entry]]\npath = \"secret\"\naccess = \"deny\"\n")
	code, _, _ := cli(t, ws, "", "run", "-q", "--", "sh", "-c", "touch made")
	if code == 0 || exists(filepath.Join(ws, "made")) {
		t.Fatalf("read-only from the workspace file not applied: exit %d", code)
	}
	if code, stdout, _ := cli(t, ws, "", "run", "-q", "--", "cat", "secret/key"); code == 0 || stdout == "k" {
		t.Fatalf("deny entry not applied: exit %d %q", code, stdout)
	}
	_, stdout, _ := cli(t, ws, "", "policy", "explain")
	if !strings.Contains(stdout, "not trusted: it only narrows your policy") {
		t.Errorf("explain does not say how the file is used:\n%s", stdout)
	}
	// The person's own flags still win over it.
	if code, _, errOut := cli(t, ws, "", "run", "-q", "--mode", "workspace-write", "--", "sh", "-c", "touch made"); code != 0 || !exists(filepath.Join(ws, "made")) {
		t.Fatalf("--mode from the person: exit %d %s", code, errOut)
	}
}

// --policy FILE counts as trusted (the person named it on the command
// line, where --mode could say the same), and still warns.
func TestExplicitPolicyIsTrustedAndWarns(t *testing.T) {
	home := userHome(t)
	ws := workspace(t)
	p := filepath.Join(home, "team.toml")
	writeFile(t, p, "mode = \"danger-full-access\"\n")
	code, stdout, errOut := cli(t, ws, "", "policy", "explain", "--policy", p)
	if code != 0 || !strings.Contains(stdout, "danger-full-access") || !strings.Contains(stdout, "named with --policy") || !strings.Contains(errOut, "warning") {
		t.Fatalf("explicit: exit %d\n%s\n%s", code, stdout, errOut)
	}
	// The user's own policy file may widen the built-in defaults.
	writeFile(t, filepath.Join(home, ".config", "ringfence", "policy.toml"), "mode = \"workspace-write\"\n[network]\nmode = \"loopback\"\n")
	writeFile(t, filepath.Join(ws, ".ringfence.toml"), "[network]\nmode = \"loopback\"\n")
	if code, stdout, errOut := cli(t, ws, "", "policy", "explain"); code != 0 || !strings.Contains(stdout, "loopback") || !strings.Contains(stdout, "your own policy") {
		t.Fatalf("user policy + narrowing workspace file: exit %d\n%s\n%s", code, stdout, errOut)
	}
}

// A bad trust store is never trusted from, and refusal names why.
func TestInsecureTrustStoreIsNotUsed(t *testing.T) {
	home := userHome(t)
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, ".ringfence.toml"), "[network]\nmode = \"allow-all\"\n")
	if code, _, _ := cli(t, ws, "", "policy", "trust"); code != 0 {
		t.Fatal("trust failed")
	}
	store := filepath.Join(home, ".config", "ringfence", "trusted.json")
	if err := os.Chmod(store, 0o666); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli(t, ws, "", "policy", "explain")
	if code != exitPolicy || !strings.Contains(errOut, "writable by others") {
		t.Fatalf("group/world-writable store: exit %d %q", code, errOut)
	}
}

// The user's own policy file is trusted by where it lives, so one that
// someone else could have written is refused, not used.
func TestUserPolicyWritableByOthersIsRefused(t *testing.T) {
	home := userHome(t)
	ws := workspace(t)
	p := filepath.Join(home, ".config", "ringfence", "policy.toml")
	writeFile(t, p, "mode = \"danger-full-access\"\n")
	if err := os.Chmod(p, 0o666); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := cli(t, ws, "", "policy", "explain")
	if code != exitUsage || !strings.Contains(errOut, "writable by others") {
		t.Fatalf("exit %d %q", code, errOut)
	}
}
