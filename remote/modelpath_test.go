package remote

import (
	"errors"
	"testing"

	"github.com/ringfence/ringfence/internal/modelpath"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
)

// remotePaths are model paths a remote Sandbox must read as a local one
// does (internal/modelpath): under the mount path, with dot segments, and
// every kind pathrule refuses.
var remotePaths = []string{"a.go", "src/a.go", "/workspace/a.go", "/workspace/src/../a.go", "/workspace",
	"/workspace/", ".", "", "../etc/passwd", "/etc/passwd", "/workspacex/a", "~/x", "C:/x", `a\b`, "a\x00b",
	"a/../../b", "/workspace/../etc", "./a", "a//b/"}

// A remote Sandbox refuses the model paths a local one refuses, and only
// those, with the same outcome (outcome.Of: path-rejected) and still
// pathrule.ErrPathRefused; what it accepts it sends as the same clean
// relative path. Before, "/workspace/a.go" was refused remotely though
// accepted locally, and a refusal carried no outcome.
func TestRemotePathsMatchLocal(t *testing.T) {
	for _, p := range remotePaths {
		checkRemotePath(t, p)
	}
}

func FuzzRemotePathsMatchLocal(f *testing.F) {
	for _, p := range remotePaths {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) { checkRemotePath(t, p) })
}

func checkRemotePath(t *testing.T, p string) {
	t.Helper()
	var m modelpath.Mount
	want, wantErr := m.Clean(p)
	got, err := filePath(p)
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("file %q: remote %q %v, local %q %v", p, got, err, want, wantErr)
	}
	if err == nil && got != "/v1/files/"+want {
		t.Fatalf("file %q: remote sends %q, local reads %q", p, got, want)
	}
	checkRefusal(t, p, err)
	wantDir, wantErr := m.Scope(p)
	dir, err := cwdOf(p)
	if (err == nil) != (wantErr == nil) || dir != wantDir {
		t.Fatalf("cwd %q: remote %q %v, local %q %v", p, dir, err, wantDir, wantErr)
	}
	checkRefusal(t, p, err)
}

func checkRefusal(t *testing.T, p string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	o, ok := outcome.Of(err)
	if !ok || o.Kind != outcome.PathRejected || !errors.Is(err, pathrule.ErrPathRefused) {
		t.Fatalf("%q: refusal %v has no path-rejected outcome (%+v) or is not ErrPathRefused", p, err, o)
	}
}
