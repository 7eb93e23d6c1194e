package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// configTargets names the config dir as named and where it, and the user
// policy file in it, really are — through linked dirs, a linked file, a
// dangling link, and a linked parent whose config dir does not exist yet.
func TestConfigTargets(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	noErr(t, err)
	dir := func(name string) string { return filepath.Join(base, name, ".config", "ringfence") }
	link := func(target, name string) {
		noErr(t, os.MkdirAll(filepath.Dir(name), 0o755))
		noErr(t, os.Symlink(target, name))
	}
	// A plain dir: only itself.
	noErr(t, os.MkdirAll(dir("plain"), 0o755))
	// The dir linked (relative link, as stow makes).
	noErr(t, os.MkdirAll(filepath.Join(base, "dots1", "rf"), 0o755))
	link("../../dots1/rf", dir("dirlink"))
	// The policy file linked, and a dangling one.
	noErr(t, os.MkdirAll(dir("filelink"), 0o755))
	link(filepath.Join(base, "dots2", "p.toml"), filepath.Join(dir("filelink"), "policy.toml"))
	writeFile(t, filepath.Join(base, "dots2", "p.toml"), "")
	noErr(t, os.MkdirAll(dir("dangling"), 0o755))
	link(filepath.Join(base, "dots3", "gone", "p.toml"), filepath.Join(dir("dangling"), "policy.toml"))
	// .config linked, no ringfence dir in it yet.
	noErr(t, os.MkdirAll(filepath.Join(base, "dots4", "config"), 0o755))
	link(filepath.Join(base, "dots4", "config"), filepath.Join(base, "parent", ".config"))

	for _, tc := range []struct {
		name string
		want []string
	}{
		{"plain", nil},
		{"dirlink", []string{filepath.Join(base, "dots1", "rf")}},
		{"filelink", []string{filepath.Join(base, "dots2", "p.toml")}},
		{"dangling", []string{filepath.Join(base, "dots3", "gone", "p.toml")}},
		{"parent", []string{filepath.Join(base, "dots4", "config", "ringfence")}},
	} {
		got := configTargets(dir(tc.name))
		want := append([]string{dir(tc.name)}, tc.want...)
		if !slices.Equal(got, want) {
			t.Errorf("%s: configTargets = %q, want %q", tc.name, got, want)
		}
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
