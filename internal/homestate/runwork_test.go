//go:build unix

package homestate

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A run's work directory lives while its run holds it; one left by a
// killed ringfence in this boot (nobody holds it; overlayfs made its inner
// directory mode 000) is swept when the next run makes its own, and the
// layer's upper directory is kept.
func TestRunWorkSweptWhenNobodyHoldsIt(t *testing.T) {
	state, root := t.TempDir(), "/repo"
	l, err := Prepare(state, root)
	if err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(l.Upper, ".bashrc")
	if err := os.WriteFile(kept, []byte("layer\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	live, remove, err := NewRunWork(l.Work, l.Upper)
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(l.Work, "run-Lstale0123456789abcdef")
	if err := os.MkdirAll(filepath.Join(stale, "work"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stale, BootFile), []byte(bootID()), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(stale, "work"), 0); err != nil {
		t.Fatal(err)
	}
	// A staging directory a ringfence killed inside privdir.Make left
	// (old enough to be swept) never held an overlay: swept, no reset.
	staging := filepath.Join(l.Work, ".run-new-0123456789")
	if err := os.Mkdir(staging, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(staging, old, old); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(l.Work, "not-a-run")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	_, removeNext, err := NewRunWork(l.Work, l.Upper)
	if err != nil {
		t.Fatal(err)
	}
	defer removeNext()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale run directory was not swept: %v", err)
	}
	if _, err := os.Stat(staging); !os.IsNotExist(err) {
		t.Errorf("the old staging directory was not swept: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live run's directory was swept: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a directory not named as a run's was swept: %v", err)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("a run directory left in this boot, or a staging one, reset the layer: %v", err)
	}
	remove()
	if _, err := os.Stat(live); !os.IsNotExist(err) {
		t.Errorf("remove left the run's directory: %v", err)
	}
}

// The layer is mounted volatile: a host that went down during a run may
// have left a torn copy of a home file in upper, hiding the real one in
// every later run. A run directory left from another boot (or one that
// does not say its boot) makes the next run start the layer afresh; the
// control, one left in this boot, keeps it (above).
func TestRunWorkFromAnotherBootResetsTheLayer(t *testing.T) {
	for _, boot := range []string{"00000000-0000-0000-0000-000000000000", ""} {
		state, root := t.TempDir(), "/repo"
		l, err := Prepare(state, root)
		if err != nil {
			t.Fatal(err)
		}
		torn := filepath.Join(l.Upper, ".gitconfig")
		if err := os.WriteFile(torn, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		stale := filepath.Join(l.Work, "run-Lstale0123456789abcdef")
		if err := os.MkdirAll(filepath.Join(stale, "work", "incompat", "volatile"), 0o700); err != nil {
			t.Fatal(err)
		}
		if boot != "" {
			if err := os.WriteFile(filepath.Join(stale, BootFile), []byte(boot), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		run, remove, err := NewRunWork(l.Work, l.Upper)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(torn); !os.IsNotExist(err) {
			t.Errorf("boot %q: the layer was not reset: %v", boot, err)
		}
		if fi, err := os.Stat(l.Upper); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("boot %q: upper is not an empty private directory again: %v %v", boot, fi, err)
		}
		if entries, _ := os.ReadDir(l.Dir); len(entries) != 3 { // upper, work, cache
			t.Errorf("boot %q: the layer directory holds %d entries, want upper, work and cache", boot, len(entries))
		}
		if b, err := os.ReadFile(filepath.Join(run, BootFile)); err != nil || string(b) != bootID() {
			t.Errorf("boot %q: the new run directory does not record this boot: %q %v", boot, b, err)
		}
		remove()
	}
}
