package coderun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// outputsFixture is a call directory made by hand, opened as Run opens
// it, with a host secret beside it.
func outputsFixture(t *testing.T) (*callDir, string, string) {
	t.Helper()
	scratch := t.TempDir()
	cd, err := newCallDir(scratch)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cd.remove() })
	secret := filepath.Join(t.TempDir(), "secret")
	const content = "RF-COLLECTOR-SECRET-91e2"
	if err := os.WriteFile(secret, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return cd, secret, content
}

func collectAll(cd *callDir, req Request) []Artifact {
	c := &collector{req: req.withDefaults()}
	return c.collect(cd.root)
}

func TestCollectorNeverFollowsLinks(t *testing.T) {
	cd, secret, content := outputsFixture(t)
	out := cd.host(OutputsDir)
	must(t, os.Symlink(secret, filepath.Join(out, "abs")))
	must(t, os.Symlink("../../../../../../.."+secret, filepath.Join(out, "rel")))
	must(t, os.Symlink(filepath.Dir(secret), filepath.Join(out, "dir")))
	must(t, syscall.Mkfifo(filepath.Join(out, "fifo"), 0o644))
	must(t, os.WriteFile(filepath.Join(out, "ok.json"), []byte(`{"a":1}`), 0o644))
	// The attack works against a reader that follows links: the test can
	// fail.
	if b, err := os.ReadFile(filepath.Join(out, "abs")); err != nil || string(b) != content {
		t.Fatalf("control read: %v", err)
	}
	arts := collectAll(cd, Request{})
	want := map[string]string{"abs": RefusedSymlink, "rel": RefusedSymlink, "dir": RefusedSymlink, "fifo": RefusedSpecial, "ok.json": ""}
	if len(arts) != len(want) {
		t.Fatalf("artifacts %+v", arts)
	}
	for _, a := range arts {
		if r, ok := want[a.Name]; !ok || a.Refused != r {
			t.Errorf("%s: refused %q, want %q", a.Name, a.Refused, r)
		}
	}
	b, _ := json.Marshal(arts)
	if strings.Contains(string(b), content) {
		t.Errorf("secret collected: %s", b)
	}
}

func TestCollectorReadsTheDirectoryItOpened(t *testing.T) {
	cd, secret, content := outputsFixture(t)
	must(t, os.WriteFile(cd.host("outputs/mine.txt"), []byte("mine"), 0o644))
	// Rename the call directory aside and plant a look-alike whose
	// outputs/ holds a link; as the command could under a weaker backend.
	must(t, os.Rename(cd.path, cd.path+".moved"))
	t.Cleanup(func() { os.RemoveAll(cd.path + ".moved") })
	must(t, os.MkdirAll(filepath.Join(cd.path, OutputsDir), 0o755))
	must(t, os.WriteFile(filepath.Join(cd.path, OutputsDir, "theirs.txt"), []byte(content), 0o644))
	must(t, os.Symlink(secret, filepath.Join(cd.path, OutputsDir, "key")))
	arts := collectAll(cd, Request{})
	if len(arts) != 1 || arts[0].Name != "mine.txt" || string(arts[0].Content) != "mine" {
		t.Errorf("artifacts %+v", arts)
	}
	// A collector that re-opened the path would have read the look-alike.
	if b, _ := os.ReadFile(filepath.Join(cd.path, OutputsDir, "theirs.txt")); string(b) != content {
		t.Fatal("control: the look-alike is not in place")
	}
}

func TestCollectorBounds(t *testing.T) {
	cd, _, _ := outputsFixture(t)
	out := cd.host(OutputsDir)
	for i := range 10 {
		must(t, os.WriteFile(filepath.Join(out, string(rune('a'+i))+".txt"), []byte(strings.Repeat("x", 100)), 0o644))
	}
	c := &collector{req: Request{MaxArtifacts: 4}.withDefaults()}
	arts := c.collect(cd.root)
	if len(arts) != 4 || !c.cut || c.omitted != 6 {
		t.Errorf("count bound: %d artifacts, cut %v, omitted %d", len(arts), c.cut, c.omitted)
	}
	c = &collector{req: Request{MaxCollectBytes: 250, MaxArtifactBytes: 150}.withDefaults()}
	arts = c.collect(cd.root)
	read := 0
	for _, a := range arts {
		if a.Content != nil {
			read++
		} else if a.Refused != RefusedNotCollected {
			t.Errorf("%s: %+v", a.Name, a)
		}
	}
	if read != 2 || !c.cut || c.read > 250 {
		t.Errorf("byte bound: %d read, %d bytes, cut %v", read, c.read, c.cut)
	}
	c = &collector{req: Request{MaxArtifactBytes: 50}.withDefaults()}
	for _, a := range c.collect(cd.root) {
		if a.Refused != RefusedOverBudget || a.Content != nil {
			t.Errorf("artifact bound: %+v", a)
		}
	}
	if c.read != 0 {
		t.Errorf("read %d bytes of files over the artifact bound", c.read)
	}
}

func TestCollectorOutputsAbsentIsEmpty(t *testing.T) {
	cd, _, _ := outputsFixture(t)
	must(t, os.Remove(cd.host(OutputsDir)))
	arts := collectAll(cd, Request{})
	if arts == nil || len(arts) != 0 {
		t.Errorf("%#v", arts)
	}
}

func TestRemoveAfterTheCommandLockedItsDirs(t *testing.T) {
	cd, _, _ := outputsFixture(t)
	d := cd.host("outputs/locked")
	must(t, os.MkdirAll(filepath.Join(d, "in"), 0o755))
	must(t, os.WriteFile(filepath.Join(d, "in", "f"), nil, 0o644))
	must(t, os.Chmod(filepath.Join(d, "in"), 0))
	must(t, os.Chmod(d, 0o500))
	if err := cd.remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(cd.path); !os.IsNotExist(err) {
		t.Errorf("call dir left: %v", err)
	}
}

func TestDetectMIME(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"a.csv", []byte("a,b\n1,2\n"), "text/csv; charset=utf-8"},
		{"a.json", []byte(`{"a":1}`), "application/json"},
		{"a.txt", []byte("hi"), "text/plain; charset=utf-8"},
		{"a.csv", png, "image/png"}, // content wins over a lying extension
		{"noext", png, "image/png"},
		{"a.bin", []byte{0, 1, 2, 3}, "application/octet-stream"},
	} {
		if got := DetectMIME(c.name, c.data); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if IsText("image/png", png) || !IsText("application/json", []byte("{}")) || IsText("text/plain", []byte{0xff}) {
		t.Error("IsText")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
