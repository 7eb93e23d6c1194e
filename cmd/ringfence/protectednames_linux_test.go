package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence"
)

// A policy file's protected_names holds a name at any depth under the
// workspace, as the built-in names are: without the key the same command
// writes it (the control).
func TestPolicyFileProtectedNames(t *testing.T) {
	needBackend(t, "auto")
	ws := workspace(t)
	if err := os.MkdirAll(filepath.Join(ws, "src", "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.toml")
	named := filepath.Join(dir, "named.toml")
	if err := os.WriteFile(plain, []byte("mode = \"workspace-write\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(named, []byte("mode = \"workspace-write\"\nprotected_names = [\".tasks\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := []string{"--", "sh", "-c", "echo x > src/app/.tasks"}
	if code, res := runJSON(t, ws, append([]string{"--policy", plain}, write...)...); code != 0 {
		t.Fatalf("control: exit %d, kind %s: %s", code, res.Kind, res.Stderr)
	}
	if err := os.Remove(filepath.Join(ws, "src", "app", ".tasks")); err != nil {
		t.Fatalf("the control did not write: %v", err)
	}
	code, res := runJSON(t, ws, append([]string{"--policy", named}, write...)...)
	if code == 0 || res.Kind == ringfence.KindSuccess {
		t.Fatalf("a protected name was written: exit %d, kind %s", code, res.Kind)
	}
	// The model is told which rule holds the path, not to "stay within"
	// writable roots it is already inside.
	if !strings.Contains(res.Narration, "protected name .tasks") || strings.Contains(res.Narration, "stay within") {
		t.Errorf("narration: %s", res.Narration)
	}
	if _, err := os.Lstat(filepath.Join(ws, "src", "app", ".tasks")); err == nil {
		t.Fatal("src/app/.tasks exists on the host")
	}
}
