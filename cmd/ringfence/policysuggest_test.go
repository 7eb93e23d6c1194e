package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// suggestRun is a refused run's result as `ringfence run --json` prints
// it, trimmed to what suggest reads, with a path chosen by the command.
func suggestRun(path string) string {
	return `{"kind":"denied","violations":[{"backend":"linux","reason":"read-only-filesystem","path":` + path + `,"snippet":"x"}]}`
}

func TestPolicySuggestCLI(t *testing.T) {
	root := workspace(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	policy := filepath.Join(root, ".ringfence.toml")
	orig := "mode = \"workspace-write\"\n\n[[entry]]\npath = \"ro\"\naccess = \"read\"\n"
	os.WriteFile(policy, []byte(orig), 0o640)

	// From stdin, without --apply: shown, not written.
	code, out, errOut := cli(t, root, suggestRun(`"`+root+`/ro/a"`), "policy", "suggest")
	if code != 0 || !strings.Contains(out, `+access = "write"`) || !strings.Contains(out, "rerun with --apply") {
		t.Fatalf("%d\n%s\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(policy); string(b) != orig {
		t.Fatal("written without --apply")
	}
	// A record's text cannot drive the terminal.
	code, out, errOut = cli(t, root, suggestRun(`"`+root+`/ro/\u001b[2J\u001b]0;x\u0007/f"`), "policy", "suggest")
	if code != 0 || strings.ContainsAny(out+errOut, "\x1b\x07") {
		t.Fatalf("control characters reached the terminal: %q %q", out, errOut)
	}
	// --apply keeps the file's mode and says which trust step follows.
	code, out, _ = cli(t, root, suggestRun(`"`+root+`/ro/a"`), "policy", "suggest", "--apply", "-")
	fi, _ := os.Stat(policy)
	b, _ := os.ReadFile(policy)
	if code != 0 || !strings.Contains(string(b), `access = "write"`) || fi.Mode().Perm() != 0o640 || !strings.Contains(out, "ringfence policy trust "+policy) {
		t.Fatalf("apply: %d %v\n%s\n%s", code, fi.Mode(), out, b)
	}
	// Nothing more to suggest once applied.
	if code, out, _ = cli(t, root, suggestRun(`"`+root+`/ro/a"`), "policy", "suggest"); code != 0 || !strings.Contains(out, "already grants write") {
		t.Fatalf("after apply: %d\n%s", code, out)
	}
}

func TestPolicySuggestRefusals(t *testing.T) {
	root := workspace(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	run := suggestRun(`"` + root + `/ro/a"`)
	// A JSON policy file is not edited.
	if code, _, errOut := cli(t, root, run, "policy", "suggest", "--policy", filepath.Join(root, "p.json")); code != exitUsage || !strings.Contains(errOut, "TOML") {
		t.Fatalf("json: %d %s", code, errOut)
	}
	// Junk in, a clear error out.
	if code, _, errOut := cli(t, root, "not json", "policy", "suggest"); code != exitUsage || !strings.Contains(errOut, "not JSON") {
		t.Fatalf("junk: %d %s", code, errOut)
	}
	// A link planted under the policy file's name is not written through.
	target := filepath.Join(t.TempDir(), "elsewhere.toml")
	os.WriteFile(target, []byte("mode = \"read-only\"\n"), 0o644)
	os.Symlink(target, filepath.Join(root, ".ringfence.toml"))
	if code, _, errOut := cli(t, root, run, "policy", "suggest", "--apply"); code != exitUsage || !strings.Contains(errOut, "not a regular file") {
		t.Fatalf("link: %d %s", code, errOut)
	}
	os.Remove(filepath.Join(root, ".ringfence.toml"))
	// A layout the editor does not read: the lines are shown, nothing is written.
	inline := "network = { mode = \"domains\", allow = [\"a.example\"] }\n"
	os.WriteFile(filepath.Join(root, ".ringfence.toml"), []byte(inline), 0o644)
	host := `{"kind":"denied","violations":[],"network":[{"host":"b.example","port":443,"verdict":"deny","reason":"blocked-by-allowlist"}]}`
	code, out, _ := cli(t, root, host, "policy", "suggest", "--apply")
	if b, _ := os.ReadFile(filepath.Join(root, ".ringfence.toml")); code != 0 || string(b) != inline || !strings.Contains(out, "by hand") || !strings.Contains(out, "b.example:443") {
		t.Fatalf("manual: %d\n%s\n%s", code, out, b)
	}
	// No file yet: it is created from the template, protections included.
	os.Remove(filepath.Join(root, ".ringfence.toml"))
	code, out, _ = cli(t, root, host, "policy", "suggest", "--apply")
	b, _ := os.ReadFile(filepath.Join(root, ".ringfence.toml"))
	if code != 0 || !strings.Contains(out, "--- /dev/null") || !strings.Contains(string(b), `path = "~/.ssh"`) || !strings.Contains(string(b), `"b.example:443"`) {
		t.Fatalf("created: %d\n%s\n%s", code, out, b)
	}
}
