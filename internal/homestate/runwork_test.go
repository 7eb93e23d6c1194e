//go:build unix

package homestate

import (
	"os"
	"path/filepath"
	"testing"
)

// A run's work directory lives while its run holds it; one left by a
// killed ringfence (nobody holds it; overlayfs made its inner directory
// mode 000) is swept when the next run makes its own.
func TestRunWorkSweptWhenNobodyHoldsIt(t *testing.T) {
	state, root := t.TempDir(), "/repo"
	l, err := Prepare(state, root)
	if err != nil {
		t.Fatal(err)
	}
	live, remove, err := NewRunWork(l.Work)
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(l.Work, "run-Lstale0123456789abcdef")
	if err := os.MkdirAll(filepath.Join(stale, "work"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(stale, "work"), 0); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(l.Work, "not-a-run")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	_, removeNext, err := NewRunWork(l.Work)
	if err != nil {
		t.Fatal(err)
	}
	defer removeNext()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale run directory was not swept: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live run's directory was swept: %v", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a directory not named as a run's was swept: %v", err)
	}
	remove()
	if _, err := os.Stat(live); !os.IsNotExist(err) {
		t.Errorf("remove left the run's directory: %v", err)
	}
}
