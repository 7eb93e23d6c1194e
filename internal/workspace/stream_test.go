//go:build linux

package workspace

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

func TestOpenStreamOutcomes(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t)
			if err := syscall.Mkfifo(filepath.Join(f.root, "fifo"), 0o644); err != nil {
				t.Fatal(err)
			}
			w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
			for _, tc := range []struct {
				path string
				want outcome.Kind
			}{
				{"a.txt", outcome.OK},
				{"in/main.go", outcome.OK},
				{"/workspace/a.txt", outcome.OK},
				{"", outcome.IsADirectory},
				{"src", outcome.IsADirectory},
				{"secret/key", outcome.DeniedByPolicy},
				{"tosecret/key", outcome.DeniedByPolicy},
				{"outfile", outcome.PathRejected},
				{"out/sentinel", outcome.PathRejected},
				{"abs/sentinel", outcome.PathRejected},
				{"src/escape", outcome.PathRejected},
				{"../outside/sentinel", outcome.PathRejected},
				{"/etc/passwd", outcome.PathRejected},
				{"fifo", outcome.NotARegularFile},
				{"nope", outcome.NotFound},
			} {
				file, info, err := w.Open(tc.path)
				wantKind(t, tc.path, err, tc.want)
				if err == nil {
					b, _ := io.ReadAll(file)
					file.Close()
					if int64(len(b)) != info.Size || !info.Regular || strings.Contains(string(b), sentinel) {
						t.Errorf("%s: read %d bytes, info %+v", tc.path, len(b), info)
					}
				}
			}
		})
	}
}

func TestReadDirShowsOnlyWhatStaysInside(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t)
			w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
			l, err := w.ReadDir("/workspace", 100)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range l.Entries {
				kind := "f"
				if e.Dir {
					kind = "d"
				}
				got = append(got, e.Name+":"+kind)
			}
			want := ".bashrc:f .git:d a.txt:f bin.dat:f in:d ro:d src:d"
			if strings.Join(got, " ") != want || l.Limited != nil || l.Path != "/workspace" {
				t.Errorf("listing %q (limited %v, path %s), want %q", strings.Join(got, " "), l.Limited, l.Path, want)
			}
			if l, err := w.ReadDir("", 2); err != nil || len(l.Entries) != 2 || l.Limited == nil || l.Limited.Kind != outcome.ScopeLimited {
				t.Errorf("bounded listing: %+v %v", l, err)
			}
			for path, want := range map[string]outcome.Kind{"a.txt": outcome.NotADirectory, "secret": outcome.DeniedByPolicy,
				"out": outcome.PathRejected, "nope": outcome.NotFound} {
				_, err := w.ReadDir(path, 100)
				wantKind(t, path, err, want)
			}
		})
	}
}

func TestWriteStream(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t)
			w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
			if err := os.Link(filepath.Join(f.outside, "sentinel"), filepath.Join(f.root, "hardlink")); err != nil {
				t.Fatal(err)
			}
			opts := StreamOptions{Perm: 0o750, MaxBytes: 16}
			res, err := w.WriteStream("made/x.sh", strings.NewReader("#!/bin/sh\n"), opts)
			if err != nil || res.Bytes != 10 || !res.Created {
				t.Fatalf("write: %+v %v", res, err)
			}
			if st, err := os.Stat(filepath.Join(f.root, "made/x.sh")); err != nil || st.Mode().Perm() != 0o750 {
				t.Errorf("mode: %v %v", st.Mode(), err)
			}
			for _, tc := range []struct {
				path, body string
				want       outcome.Kind
				reason     string
			}{
				{"big", strings.Repeat("x", 17), outcome.OverBudget, ""},
				{"a.txt", strings.Repeat("x", 17), outcome.OverBudget, ""}, // the old file stays
				{"sub/.envrc", "x", outcome.DeniedByPolicy, ReasonProtectedName},
				{"sub/.git/hooks/pre-commit", "x", outcome.DeniedByPolicy, ReasonProtectedName},
				{"deep/er/pre-push", "x", outcome.DeniedByPolicy, ReasonProtectedName},
				{".git/config", "x", outcome.DeniedByPolicy, ""},
				{"hardlink", "x", outcome.DeniedByPolicy, ReasonAliased},
				{"outfile", "x", outcome.PathRejected, ReasonEscape},
				{"src", "x", outcome.IsADirectory, ""},
			} {
				_, err := w.WriteStream(tc.path, strings.NewReader(tc.body), opts)
				if o := wantKind(t, tc.path, err, tc.want); o.Reason != tc.reason {
					t.Errorf("%s: reason %q, want %q", tc.path, o.Reason, tc.reason)
				}
			}
			_, err = w.WriteStream("cut", errReader{}, opts)
			if o, _ := outcome.Of(err); o.Kind != outcome.IOFailure || o.Detail != DetailSource {
				t.Errorf("broken source: %v", err)
			}
			for _, p := range []string{"big", "sub", "deep", "cut"} {
				if _, err := os.Lstat(filepath.Join(f.root, p)); err == nil && p != "sub" && p != "deep" {
					t.Errorf("%s exists", p)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(f.root, "a.txt")); string(b) != "one\ntwo\nthree\n" {
				t.Errorf("a.txt changed: %q", b)
			}
			checkOutside(t, f)
			checkNoTemp(t, f.root)
		})
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestRemove(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t)
			w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
			writeHost(t, filepath.Join(f.root, "tree/a/b/c.txt"), "c")
			writeHost(t, filepath.Join(f.root, "tree/d.txt"), "d")
			if err := os.Symlink("../../outside", filepath.Join(f.root, "tree/a/out")); err != nil {
				t.Fatal(err)
			}
			writeHost(t, filepath.Join(f.root, "guarded/x/.envrc"), "export X=1")
			writeHost(t, filepath.Join(f.root, "guarded/y.txt"), "y")
			for _, tc := range []struct {
				path      string
				recursive bool
				want      outcome.Kind
				detail    string
			}{
				{"tree", false, outcome.InvalidArguments, DetailNotEmpty},
				{"guarded", true, outcome.DeniedByPolicy, ""},
				{"", false, outcome.InvalidArguments, DetailRoot},
				{"", true, outcome.DeniedByPolicy, ""}, // .git and .bashrc are protected
				{".git/hooks/pre-commit", false, outcome.DeniedByPolicy, ""},
				{"secret/key", false, outcome.DeniedByPolicy, ""},
				{"ro/file", false, outcome.DeniedByPolicy, ""},
				{"out/sentinel", false, outcome.PathRejected, ""},
				{"nope", false, outcome.NotFound, ""},
				{"outfile", false, outcome.OK, ""}, // the link itself
				{"tree", true, outcome.OK, ""},
			} {
				err := w.Remove(tc.path, tc.recursive)
				if o := wantKind(t, tc.path, err, tc.want); o.Detail != tc.detail {
					t.Errorf("%s: detail %q", tc.path, o.Detail)
				}
			}
			for _, p := range []string{"tree", "outfile"} {
				if _, err := os.Lstat(filepath.Join(f.root, p)); err == nil {
					t.Errorf("%s still there", p)
				}
			}
			for _, p := range []string{"guarded/y.txt", "guarded/x/.envrc", "a.txt", ".bashrc", "secret/key"} {
				if _, err := os.Lstat(filepath.Join(f.root, p)); err != nil {
					t.Errorf("%s was removed (refused removals must remove nothing)", p)
				}
			}
			checkOutside(t, f)
		})
	}
}

// TestProtectedNameReopenedOnlyExactly: a write granted at exactly a
// protected name (an approval) reopens it; a broader grant never does.
func TestProtectedNameReopenedOnlyExactly(t *testing.T) {
	f := newFixture(t)
	pol := policyFor(f.root, policy.WorkspaceWrite)
	pol.Layers = append(pol.Layers,
		policy.Layer{Path: f.root + "/sub/.envrc", Access: policy.Write, Origin: policy.FromApproval},
		policy.Layer{Path: f.root + "/granted", Access: policy.Write, Origin: policy.FromDeployment})
	policy.SortLayers(pol.Layers)
	w := open(t, pol, false)
	for path, want := range map[string]outcome.Kind{
		"sub/.envrc":         outcome.OK,
		"other/.envrc":       outcome.DeniedByPolicy,
		"granted/.envrc":     outcome.DeniedByPolicy,
		"granted/pre-commit": outcome.DeniedByPolicy,
		"granted/ok.txt":     outcome.OK,
	} {
		_, err := w.WriteFile(path, []byte("x"))
		wantKind(t, path, err, want)
	}
}
