package policyfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTrustStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	store := TrustStorePath(dir)
	tr, err := LoadTrust(store)
	if err != nil || len(tr.Files) != 0 {
		t.Fatalf("missing store: %v %v", tr, err)
	}
	tr.Add("/repo/.ringfence.toml", "aa", time.Unix(1, 0))
	tr.Add("/b/.ringfence.toml", "bb", time.Unix(2, 0))
	tr.Add("/repo/.ringfence.toml", "cc", time.Unix(3, 0)) // re-trust replaces
	if err := tr.Save(store); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(store)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store mode %v %v, want 0600", fi.Mode(), err)
	}
	if di, _ := os.Stat(filepath.Dir(store)); di.Mode().Perm() != 0o700 {
		t.Errorf("store dir mode %v, want 0700", di.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(store), ".trusted-*")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
	back, err := LoadTrust(store)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Trusted("/repo/.ringfence.toml", "cc") || back.Trusted("/repo/.ringfence.toml", "aa") || !back.Trusted("/b/.ringfence.toml", "bb") {
		t.Fatalf("records %+v", back.Files)
	}
	if !back.Remove("/b/.ringfence.toml") || back.Remove("/b/.ringfence.toml") || len(back.Files) != 1 {
		t.Fatalf("remove: %+v", back.Files)
	}
}

// A store others could have written is refused, never read.
func TestTrustStoreRefusesInsecure(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, store string)
		want  string
	}{
		{"symlink", func(t *testing.T, store string) {
			real := filepath.Join(t.TempDir(), "elsewhere.json")
			os.WriteFile(real, []byte(`{"files":[]}`), 0o600)
			must(t, os.Symlink(real, store))
		}, "symbolic link"},
		{"group-writable", func(t *testing.T, store string) {
			must(t, os.WriteFile(store, []byte(`{}`), 0o600))
			must(t, os.Chmod(store, 0o620))
		}, "writable by others"},
		{"dir world-writable", func(t *testing.T, store string) {
			must(t, os.Chmod(filepath.Dir(store), 0o777))
		}, "writable by others"},
		{"fifo", func(t *testing.T, store string) {
			must(t, mkfifo(store))
		}, "not a regular file"},
		{"garbage", func(t *testing.T, store string) {
			must(t, os.WriteFile(store, []byte(`{"files": 3}`), 0o600))
		}, "trust store"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := TrustStorePath(t.TempDir())
			must(t, os.MkdirAll(filepath.Dir(store), 0o700))
			tc.setup(t, store)
			if _, err := LoadTrust(store); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCanonicalPath(t *testing.T) {
	dir := t.TempDir()
	real, _ := filepath.EvalSymlinks(dir)
	must(t, os.Mkdir(filepath.Join(real, "r"), 0o755))
	must(t, os.Symlink(filepath.Join(real, "r"), filepath.Join(real, "link")))
	must(t, os.Symlink("/etc/passwd", filepath.Join(real, "r", ".ringfence.toml")))
	got, err := CanonicalPath(filepath.Join(real, "link", ".", ".ringfence.toml"))
	if err != nil || got != filepath.Join(real, "r", ".ringfence.toml") {
		t.Fatalf("got %q %v: the directory's links resolve, the file's own name stays", got, err)
	}
}

// LoadFile hashes exactly the bytes it parses and refuses what is not a
// regular file (a FIFO would otherwise hang the read).
func TestLoadFileDigestAndFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".ringfence.toml")
	data := []byte("mode = \"read-only\"\n")
	must(t, os.WriteFile(p, data, 0o644))
	f, err := LoadFile(p)
	if err != nil || f.Digest != Digest(data) || len(f.Digest) != 64 {
		t.Fatalf("digest %q %v", f.Digest, err)
	}
	fifo := filepath.Join(dir, "fifo.toml")
	must(t, mkfifo(fifo))
	done := make(chan error, 1)
	go func() { _, err := LoadFile(fifo); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("fifo: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LoadFile hung on a FIFO")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
