//go:build linux

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

func TestWriteFileOutcomes(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t)
			w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
			for _, tc := range []struct {
				path string
				want outcome.Kind
				axis string
			}{
				{"new.txt", outcome.OK, ""},
				{"a.txt", outcome.OK, ""},
				{"/workspace/made/deep/new.txt", outcome.OK, ""}, // parents created
				{"in/via-link.go", outcome.OK, ""},               // through a link inside
				{".git/hooks/pre-commit", outcome.DeniedByPolicy, "write"},
				{".git/hooks/new-hook", outcome.DeniedByPolicy, "write"},
				{".bashrc", outcome.DeniedByPolicy, "write"},
				{".claude/settings.json", outcome.DeniedByPolicy, "write"}, // under a protected dir not yet there
				{"ro/file", outcome.DeniedByPolicy, "write"},
				{"secret/new", outcome.DeniedByPolicy, "write"},
				{"out/planted", outcome.PathRejected, ""},
				{"abs/planted", outcome.PathRejected, ""},
				{"outfile", outcome.PathRejected, ""}, // a final link leading out
				{"../outside/planted", outcome.PathRejected, ""},
				{"src", outcome.IsADirectory, ""},
				{"a.txt/x", outcome.NotADirectory, ""},
			} {
				_, err := w.WriteFile(tc.path, []byte("written\n"))
				o := wantKind(t, tc.path, err, tc.want)
				if tc.axis != "" && o.Axis != tc.axis {
					t.Errorf("%s: axis %q", tc.path, o.Axis)
				}
			}
			for _, p := range []string{"new.txt", "a.txt", "made/deep/new.txt", "src/via-link.go"} {
				if b, err := os.ReadFile(filepath.Join(f.root, p)); err != nil || string(b) != "written\n" {
					t.Errorf("%s: %q %v", p, b, err)
				}
			}
			for _, p := range []string{".claude", "planted"} {
				if _, err := os.Lstat(filepath.Join(f.root, p)); err == nil {
					t.Errorf("%s was created", p)
				}
			}
			checkOutside(t, f)
			checkNoTemp(t, f.root)
		})
	}
}

// checkOutside asserts the outside directory holds only its sentinel.
func checkOutside(t *testing.T, f fix) {
	t.Helper()
	ents, _ := os.ReadDir(f.outside)
	if len(ents) != 1 {
		t.Errorf("outside holds %d entries, want only the sentinel", len(ents))
	}
	if b, _ := os.ReadFile(filepath.Join(f.outside, "sentinel")); string(b) != sentinel {
		t.Errorf("sentinel changed: %q", b)
	}
}

func checkNoTemp(t *testing.T, root string) {
	t.Helper()
	_ = filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
		if strings.Contains(filepath.Base(p), ".ringfence-") {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
}

func TestWriteReadOnlyMode(t *testing.T) {
	f := newFixture(t)
	w := open(t, policyFor(f.root, policy.ReadOnly), false)
	_, err := w.WriteFile("a.txt", []byte("x"))
	o := wantKind(t, "read-only", err, outcome.OutsideWriteRoot)
	if len(o.WriteRoots) != 0 || !errors.Is(err, policy.ErrDenied) {
		t.Errorf("%+v", o)
	}
	// A writable root elsewhere in the tree is named as a model path.
	pol := policyFor(f.root, policy.ReadOnly)
	pol.Layers = append(pol.Layers, policy.Layer{Path: f.root + "/src", Access: policy.Write, Origin: policy.FromDeployment})
	policy.SortLayers(pol.Layers)
	w = open(t, pol, false)
	_, err = w.WriteFile("a.txt", []byte("x"))
	if o := wantKind(t, "outside src", err, outcome.OutsideWriteRoot); len(o.WriteRoots) != 1 || o.WriteRoots[0] != "/workspace/src" {
		t.Errorf("roots %v", o.WriteRoots)
	}
	if _, err := w.WriteFile("src/ok.go", []byte("x")); err != nil {
		t.Error(err)
	}
}

// TestHardLinkRefusal: a file in the root hard-linked to one outside is
// not written (the attack a plain open+write would carry out), unless the
// policy allows aliased writes; even then the rename leaves the outside
// name untouched.
func TestHardLinkRefusal(t *testing.T) {
	f := newFixture(t)
	if err := os.Link(filepath.Join(f.outside, "sentinel"), filepath.Join(f.root, "alias")); err != nil {
		t.Fatal(err)
	}
	// Control: a naive in-place write through the alias changes the outside file.
	naive := filepath.Join(f.base, "naive")
	writeHost(t, naive, "before")
	if err := os.Link(naive, filepath.Join(f.root, "naive-alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "naive-alias"), []byte("leaked"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(naive); string(b) != "leaked" {
		t.Fatal("control: the naive write did not reach the outside name")
	}
	pol := policyFor(f.root, policy.WorkspaceWrite)
	w := open(t, pol, false)
	_, err := w.WriteFile("alias", []byte("x"))
	if o := wantKind(t, "aliased", err, outcome.DeniedByPolicy); o.Reason != ReasonAliased {
		t.Errorf("%+v", o)
	}
	_, err = w.EditFile("alias", "OUTSIDE", "x", false)
	wantKind(t, "aliased edit", err, outcome.DeniedByPolicy)
	checkOutside(t, f)
	pol.AllowAliasedWrites = true
	if _, err := w.WriteFile("alias", []byte("x")); err != nil {
		t.Errorf("allowed: %v", err)
	}
	checkOutside(t, f)
}

func TestWritePreservesModeAndIsAtomic(t *testing.T) {
	f := newFixture(t)
	p := filepath.Join(f.root, "run.sh")
	writeHost(t, p, "old")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(p)
	w := open(t, policyFor(f.root, policy.WorkspaceWrite), false)
	res, err := w.WriteFile("run.sh", []byte("new"))
	if err != nil || res.Created || res.Bytes != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	after, _ := os.Stat(p)
	if after.Mode().Perm() != 0o750 {
		t.Errorf("mode %v", after.Mode())
	}
	if os.SameFile(before, after) {
		t.Error("written in place, not by rename")
	}
	checkNoTemp(t, f.root)
}

func TestEditFile(t *testing.T) {
	f := newFixture(t)
	writeHost(t, filepath.Join(f.root, "e.txt"), "alpha beta alpha\n")
	w := open(t, policyFor(f.root, policy.WorkspaceWrite), false)
	res, err := w.EditFile("e.txt", "beta", "gamma", false)
	if err != nil || res.Replacements != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	_, err = w.EditFile("e.txt", "alpha", "x", false)
	if o := wantKind(t, "ambiguous", err, outcome.InvalidArguments); o.Observed != 2 {
		t.Errorf("%+v", o)
	}
	_, err = w.EditFile("e.txt", "zeta", "x", false)
	if o := wantKind(t, "missing", err, outcome.NoMatches); o.Pattern != "old_string" || strings.Contains(o.Detail, "zeta") {
		t.Errorf("%+v", o)
	}
	res, err = w.EditFile("e.txt", "alpha", "delta", true)
	if err != nil || res.Replacements != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.root, "e.txt")); string(b) != "delta gamma delta\n" {
		t.Errorf("%q", b)
	}
	for _, tc := range []struct {
		path, old, new string
		want           outcome.Kind
	}{
		{"e.txt", "", "x", outcome.InvalidArguments},
		{"e.txt", "x", "x", outcome.InvalidArguments},
		{"none.txt", "a", "b", outcome.NotFound},
		{".bashrc", "alias", "x", outcome.DeniedByPolicy},
		{"secret/key", "hello", "x", outcome.DeniedByPolicy},
		{"outfile", "OUTSIDE", "x", outcome.PathRejected},
		{"src", "a", "b", outcome.IsADirectory},
	} {
		_, err := w.EditFile(tc.path, tc.old, tc.new, false)
		wantKind(t, tc.path+" "+tc.old, err, tc.want)
	}
	checkOutside(t, f)
	checkNoTemp(t, f.root)
}
