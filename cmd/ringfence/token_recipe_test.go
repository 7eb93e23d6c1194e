package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// docs/mcp.md's token recipe, run as written under a permissive umask and
// over an old token file others could read, leaves a token file
// ringfence accepts (0600, in a 0700 directory, a new token). The control
// is the recipe it replaced: over such a file it keeps the old mode, and
// ringfence refuses the file — the recipe's order matters.
func TestTokenRecipe(t *testing.T) {
	blocks, err := fencedBlocks("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, b := range blocks {
		if b.marker("checked-by") == "TestTokenRecipe" {
			lines = strings.Split(strings.TrimSpace(b.body), "\n")
		}
	}
	if len(lines) != 3 || !strings.Contains(lines[2], "--token-file ~/.config/ringfence/token") {
		t.Fatalf("the recipe is not make-dir, write-token, serve: %q", lines)
	}
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	for _, tc := range []struct {
		name   string
		script string
		ok     bool
	}{
		{"recipe", lines[0] + "\n" + lines[1], true},
		{"control: the old recipe", "mkdir -p ~/.config/ringfence\numask 077; head -c 32 /dev/urandom | base64 > ~/.config/ringfence/token", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".config", "ringfence")
			tok := filepath.Join(dir, "token")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(tok, []byte("an old token others could read\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c := exec.Command("sh", "-c", tc.script)
			c.Env = append(os.Environ(), "HOME="+home)
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			got, err := readToken("--token-file", tok)
			if (err == nil) != tc.ok {
				t.Fatalf("readToken: %q %v", got, err)
			}
			if !tc.ok {
				return
			}
			if strings.Contains(got, "old token") || len(got) < 40 {
				t.Errorf("token %q", got)
			}
			if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("directory mode %v %v", fi.Mode(), err)
			}
		})
	}
}
