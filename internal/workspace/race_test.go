//go:build linux

package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ringfence/ringfence/policy"
	"golang.org/x/sys/unix"
)

// raceFixture makes root/d (a real directory) and root/dl (a link to the
// outside directory), which swap() exchanges atomically, over and over.
func raceFixture(t *testing.T) (fix, func(stop *atomic.Bool)) {
	f := newFixture(t)
	writeHost(t, filepath.Join(f.root, "d", "sentinel"), "inside\n")
	if err := os.Symlink(f.outside, filepath.Join(f.root, "dl")); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(f.root, "d"), filepath.Join(f.root, "dl")
	swap := func(stop *atomic.Bool) {
		for !stop.Load() {
			_ = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
		}
	}
	return f, swap
}

// race runs op against the swapping for d while it lasts, and counts the
// calls that saw the outside.
func race(t *testing.T, swap func(*atomic.Bool), op func() bool) (leaks, calls int) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); swap(&stop) }()
	deadline := time.Now().Add(1500 * time.Millisecond)
	for time.Now().Before(deadline) {
		calls++
		if op() {
			leaks++
		}
	}
	stop.Store(true)
	wg.Wait()
	return leaks, calls
}

// TestLinkRace: while d flips between a directory inside and a link to the
// outside, ReadFile and WriteFile through d never read or write outside.
func TestLinkRace(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			f, swap := raceFixture(t)
			st0, _ := os.Stat(filepath.Join(f.outside, "sentinel"))
			w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
			var ok atomic.Int64
			leaks, calls := race(t, swap, func() bool {
				res, err := w.ReadFile("d/sentinel", ReadOptions{MaxBytes: 1 << 10})
				if err == nil {
					ok.Add(1)
				}
				_, _ = w.WriteFile("d/planted", []byte("x"))
				_, _ = w.WriteFile("d/sentinel", []byte("inside\n"))
				return strings.Contains(res.Text, sentinel)
			})
			if leaks > 0 {
				t.Errorf("%d of %d reads saw the outside sentinel", leaks, calls)
			}
			if ok.Load() == 0 {
				t.Errorf("no read succeeded in %d calls: the race did not exercise the inside", calls)
			}
			st1, _ := os.Stat(filepath.Join(f.outside, "sentinel"))
			if !st1.ModTime().Equal(st0.ModTime()) {
				t.Error("the outside sentinel was modified")
			}
			checkOutside(t, f)
			t.Logf("%d calls, %d reads inside", calls, ok.Load())
		})
	}
}

// naiveRead is the check-then-use helper the workspace replaces: it checks
// the path resolves inside the root, then reads it by name.
func naiveRead(root, rel string) ([]byte, bool) {
	p := filepath.Join(root, rel)
	real, err := filepath.EvalSymlinks(p)
	if err != nil || !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return nil, false
	}
	b, err := os.ReadFile(p)
	return b, err == nil
}

// TestLinkRaceNaiveLeaks shows the race test can fail: the same swapping
// against naiveRead does read the outside sentinel.
func TestLinkRaceNaiveLeaks(t *testing.T) {
	f, swap := raceFixture(t)
	leaks, calls := race(t, swap, func() bool {
		b, _ := naiveRead(f.root, "d/sentinel")
		return string(b) == sentinel
	})
	if leaks == 0 {
		t.Fatalf("the naive helper never leaked in %d calls: the race test would prove nothing", calls)
	}
	t.Logf("naive helper leaked %d times in %d calls", leaks, calls)
}
