//go:build linux

package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// fixture lays out a root and, beside it, an outside directory holding a
// sentinel. Links inside the root point in, out, and into denied places.
//
//	root/a.txt, src/main.go, src/sub/deep.go, secret/key, ro/file,
//	.git/hooks/pre-commit, .bashrc, bin.dat (binary), big.txt
//	root/in -> src, root/out -> ../outside, root/abs -> /<outside>,
//	root/outfile -> ../outside/sentinel, root/tosecret -> secret,
//	root/proc -> /proc/self/root, root/loop -> loop
type fix struct {
	base, root, outside string
}

const sentinel = "OUTSIDE-SENTINEL"

func newFixture(t testing.TB) fix {
	t.Helper()
	base := t.TempDir()
	f := fix{base: base, root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	files := map[string]string{
		"a.txt":                 "one\ntwo\nthree\n",
		"src/main.go":           "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
		"src/sub/deep.go":       "package sub\n\n// Hello is deep.\nfunc Hello() {}\n",
		"secret/key":            "hello secret\n",
		"ro/file":               "read only\n",
		".git/hooks/pre-commit": "#!/bin/sh\n",
		".git/config":           "hello git\n",
		".bashrc":               "alias hello=1\n",
		"bin.dat":               "hello\x00\x01\x02",
	}
	for name, body := range files {
		writeHost(t, filepath.Join(f.root, name), body)
	}
	writeHost(t, filepath.Join(f.outside, "sentinel"), sentinel)
	links := map[string]string{
		"in": "src", "out": "../outside", "abs": f.outside, "outfile": "../outside/sentinel",
		"tosecret": "secret", "proc": "/proc/self/root", "loop": "loop", "src/up": "..",
		"src/escape": "../../outside/sentinel",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(f.root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func writeHost(t testing.TB, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// policyFor is what policy.Resolve makes under workspace-write: the root
// writable, protected paths read-only, plus the deployment's carve-outs.
func policyFor(root string, mode policy.Mode) *policy.Policy {
	layers := []policy.Layer{
		{Path: root + "/secret", Access: policy.Deny, Origin: policy.FromDeployment},
		{Path: root + "/ro", Access: policy.Read, Origin: policy.FromDeployment},
	}
	if mode == policy.WorkspaceWrite {
		layers = append(layers,
			policy.Layer{Path: root, Access: policy.Write, Origin: policy.FromMode},
			policy.Layer{Path: root + "/.git", Access: policy.Read, Origin: policy.FromProtected},
			policy.Layer{Path: root + "/.bashrc", Access: policy.Read, Origin: policy.FromProtected},
			policy.Layer{Path: root + "/.claude", Access: policy.Read, Origin: policy.FromProtected},
		)
	}
	policy.SortLayers(layers)
	return &policy.Policy{Mode: mode, Root: root, Baseline: policy.Read, Layers: layers}
}

// resolverModes runs a test once through openat2 and once through the
// component walk, so the fallback is held to the same table.
var resolverModes = []struct {
	name string
	walk bool
}{{"openat2", false}, {"walk", true}}

func open(t testing.TB, pol *policy.Policy, walk bool) *Workspace {
	t.Helper()
	w, err := New(pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.res.noOpenat2.Store(walk)
	t.Cleanup(func() { _ = w.Close() })
	return w
}

func kindOf(err error) outcome.Kind {
	if err == nil {
		return outcome.OK
	}
	if o, ok := outcome.Of(err); ok {
		return o.Kind
	}
	return "error:" + outcome.Kind(err.Error())
}

func wantKind(t testing.TB, what string, err error, want outcome.Kind) outcome.Outcome {
	t.Helper()
	if got := kindOf(err); got != want {
		t.Errorf("%s: got %s, want %s", what, got, want)
	}
	o, _ := outcome.Of(err)
	return o
}
