package execstage_test

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/execstage"
	"github.com/ringfence/ringfence/internal/confine/initproc/execstage/stagebuild"
)

// The carried blob is the source's: the record's source digest is the
// source's, its binary digest the blob's and the embedded image's, and
// where the recorded gcc is the one installed a fresh build from a copy
// of the source elsewhere is the blob byte for byte (no path, date or
// build id in it). A change to stage.c without `go generate` fails here.
func TestBlobIsFromSource(t *testing.T) {
	rec, err := readRecord()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(stagebuild.Source)
	if err != nil {
		t.Fatal(err)
	}
	if got := stagebuild.Digest(src); got != rec.Source {
		t.Fatalf("%s changed (sha256 %s, recorded %s): run go generate ./internal/confine/initproc/execstage", stagebuild.Source, got, rec.Source)
	}
	blob, err := os.ReadFile(stagebuild.Blob)
	if err != nil {
		t.Fatal(err)
	}
	if got := stagebuild.Digest(blob); got != rec.Binary || len(blob) != rec.Size {
		t.Fatalf("%s is not the recorded blob (sha256 %s, %d bytes; record %+v)", stagebuild.Blob, got, len(blob), rec)
	}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" && !bytes.Equal(execstage.Image(), blob) {
		t.Fatal("the embedded image is not the blob")
	}
	gcc, err := stagebuild.GCC()
	if err != nil || gcc != rec.GCC {
		t.Logf("not rebuilding: the blob was built by %q, this host has %q (%v)", rec.GCC, gcc, err)
		return
	}
	elsewhere := t.TempDir()
	if err := os.MkdirAll(filepath.Join(elsewhere, filepath.Dir(stagebuild.Source)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(elsewhere, stagebuild.Source), src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "stage")
	if err := stagebuild.Build(elsewhere, out); err != nil {
		t.Fatal(err)
	}
	rebuilt, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rebuilt, blob) {
		t.Fatalf("%s rebuilt from %s is %d bytes (sha256 %s), not the blob: the build is not reproducible", stagebuild.Source, elsewhere, len(rebuilt), stagebuild.Digest(rebuilt))
	}
}

func readRecord() (stagebuild.Record, error) {
	data, err := os.ReadFile(stagebuild.Sum)
	if err != nil {
		return stagebuild.Record{}, err
	}
	return stagebuild.ParseRecord(data)
}
