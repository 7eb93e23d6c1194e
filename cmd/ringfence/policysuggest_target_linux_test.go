package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// swapForLink does what a sandboxed command in a session can do to any
// directory of the workspace between suggest's read and its write: move
// the directory aside and plant a link under its name.
func swapForLink(t *testing.T, dir, to string) {
	t.Helper()
	if err := os.Rename(dir, dir+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(to, dir); err != nil {
		t.Fatal(err)
	}
}

// The directory of the policy file swapped for a link to the user's own
// config directory after the plan was made: --apply's write must stay in
// the directory that was read (the user's policy, trusted without a
// trust step, holds the same bytes so the "changed" check passes). The
// control writes by path, as suggest did, and lands in the user's policy.
func TestPolicySuggestWriteIsHeldByItsDirectory(t *testing.T) {
	const orig = "mode = \"workspace-write\"\n"
	const edited = orig + "\n[[entry]]\npath = \"ro\"\naccess = \"write\"\n"
	for _, defended := range []bool{false, true} {
		ws, cfg := t.TempDir(), t.TempDir()
		sub := filepath.Join(ws, "sub")
		own := filepath.Join(cfg, "ringfence")
		for _, d := range []string{sub, own} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d, "policy.toml"), []byte(orig), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(sub, "policy.toml")
		if defended {
			pt, err := openPolicyTarget(p)
			if err != nil {
				t.Fatal(err)
			}
			text, exists, err := pt.read()
			if err != nil || !exists {
				t.Fatal(exists, err)
			}
			swapForLink(t, sub, own)
			if err := pt.write(text, exists, edited); err != nil {
				t.Fatal(err)
			}
			pt.Close()
		} else {
			// Control: the path-based write (temp file and rename by name).
			text, _ := os.ReadFile(p)
			swapForLink(t, sub, own)
			if now, _ := os.ReadFile(p); string(now) != string(text) {
				t.Fatal("control: the bytes check would have stopped it")
			}
			tmp, err := os.CreateTemp(filepath.Dir(p), ".x-*")
			if err != nil {
				t.Fatal(err)
			}
			tmp.WriteString(edited)
			tmp.Close()
			if err := os.Rename(tmp.Name(), p); err != nil {
				t.Fatal(err)
			}
		}
		ownNow, _ := os.ReadFile(filepath.Join(own, "policy.toml"))
		movedNow, _ := os.ReadFile(filepath.Join(sub+".moved", "policy.toml"))
		if !defended {
			if string(ownNow) != edited {
				t.Fatal("control: the path-based write did not reach the user's policy; the attack is not shown")
			}
			continue
		}
		if string(ownNow) != orig {
			t.Fatalf("the user's own policy was rewritten through a planted link:\n%s", ownNow)
		}
		if string(movedNow) != edited {
			t.Fatalf("the directory that was read did not get the change:\n%s", movedNow)
		}
		if ents, _ := os.ReadDir(sub + ".moved"); len(ents) != 1 {
			t.Fatalf("a temp file was left behind: %v", ents)
		}
	}
}

// --policy through a directory that is a link to the user's config
// directory: suggest names the file where it really is and says that it
// is the user's own policy (applies from the next run, no trust step),
// not a file that applies only when passed.
func TestPolicySuggestShowsTheRealTarget(t *testing.T) {
	root := workspace(t)
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	own := filepath.Join(cfg, "ringfence")
	if err := os.MkdirAll(own, 0o700); err != nil {
		t.Fatal(err)
	}
	orig := "mode = \"workspace-write\"\n\n[[entry]]\npath = \"ro\"\naccess = \"read\"\n"
	if err := os.WriteFile(filepath.Join(own, "policy.toml"), []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(own, filepath.Join(root, "sub")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cli(t, root, suggestRun(`"`+root+`/ro/a"`), "policy", "suggest", "--apply", "--policy", filepath.Join(root, "sub", "policy.toml"))
	real := filepath.Join(own, "policy.toml")
	if code != 0 || !strings.Contains(out, "policy file: "+real) || !strings.Contains(out, "It is your own policy file") {
		t.Fatalf("%d\n%s\n%s", code, out, errOut)
	}
}
