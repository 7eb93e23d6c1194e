//go:build linux

package files

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// raceBudget bounds each race: long enough for the control to lose many
// times on a loaded two-core machine, short enough for the suite.
const raceBudget = 1500 * time.Millisecond

// exchanging swaps a and b (renameat2 RENAME_EXCHANGE, atomically, as a
// confined command in the workspace can) until stop is called.
func exchanging(t *testing.T, a, b string) (stop func() int) {
	t.Helper()
	done := make(chan struct{})
	var wg sync.WaitGroup
	var swaps int
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) == nil {
				swaps++
			}
		}
	}()
	return func() int { close(done); wg.Wait(); return swaps }
}

// until runs try until it reports true or the budget is spent.
func until(try func(i int) bool) bool { return within(raceBudget, try) }

// within is until with another budget: a control stops at its first win,
// so it may be given longer to lose none of its power on a loaded machine.
func within(budget time.Duration, try func(i int) bool) bool {
	deadline := time.Now().Add(budget)
	for i := 0; time.Now().Before(deadline); i++ {
		if try(i) {
			return true
		}
	}
	return false
}

// TestAttackRaceGet: a directory swapped, while GETs run, for a link to
// the outside directory that holds a file of the same name. The naive
// server leaks the outside file; the handler answers the inside file or
// a refusal, never the outside bytes.
func TestAttackRaceGet(t *testing.T) {
	f, n := attackFix(t, nil)
	d, l := filepath.Join(f.root, "d"), filepath.Join(f.root, "dl")
	writeFile(t, filepath.Join(d, "sentinel"), "inside\n")
	must(t, os.Symlink(f.outside, l))
	stop := exchanging(t, d, l)
	leaked := within(4*raceBudget, func(int) bool { b, _ := n.read("d/sentinel"); return string(b) == sentinel })
	if !leaked {
		stop()
		t.Fatal("control: the naive server never read through the swapped link")
	}
	until(func(int) bool {
		r := f.do(t, http.MethodGet, "/v1/files/d/sentinel", nil)
		if strings.Contains(string(r.body), sentinel) {
			t.Errorf("GET through a swapped directory leaked the outside file: %d", r.status)
			return true
		}
		return false
	})
	t.Logf("%d swaps", stop())
	f.checkOutside(t)
}

// TestAttackRacePut: a directory swapped, while PUTs run (into it, and
// making parents under it), for a link to the outside directory. The
// naive server writes outside; the handler never does.
func TestAttackRacePut(t *testing.T) {
	f, n := attackFix(t, nil)
	d, l := filepath.Join(f.root, "d"), filepath.Join(f.root, "dl")
	must(t, os.MkdirAll(d, 0o755))
	must(t, os.Symlink(f.outside, l))
	stop := exchanging(t, d, l)
	escaped := within(4*raceBudget, func(i int) bool {
		_ = n.write("d/naive"+strconv.Itoa(i), "x")
		ents, _ := os.ReadDir(f.outside)
		return len(ents) > 1
	})
	stop()
	if !escaped {
		t.Fatal("control: the naive server never wrote through the swapped link")
	}
	// The control's files are cleared: the outside must hold only the sentinel again.
	ents, _ := os.ReadDir(f.outside)
	for _, e := range ents {
		if e.Name() != "sentinel" {
			must(t, os.RemoveAll(filepath.Join(f.outside, e.Name())))
		}
	}
	stop = exchanging(t, d, l)
	statuses := map[int]int{}
	until(func(i int) bool {
		s := strconv.Itoa(i)
		statuses[f.put(t, "/v1/files/d/put"+s, "x").status]++
		statuses[f.put(t, "/v1/files/d/new"+s+"/deeper/file", "x").status]++
		return false
	})
	t.Logf("%d swaps, statuses %v", stop(), statuses)
	if statuses[http.StatusNoContent] == 0 || statuses[http.StatusForbidden] == 0 {
		t.Errorf("the race was not exercised: want both writes (204) and refused links (403), got %v", statuses)
	}
	f.checkOutside(t)
	f.checkNoTemp(t)
}

// naiveRemoveAll is the control's recursive delete: it checks each name
// (lstat: a directory) and then uses it by path (read it, descend), as a
// removal that does not hold descriptors does.
func naiveRemoveAll(p string) {
	fi, err := os.Lstat(p)
	if err != nil {
		return
	}
	if fi.IsDir() {
		ents, _ := os.ReadDir(p)
		for _, e := range ents {
			naiveRemoveAll(filepath.Join(p, e.Name()))
		}
	}
	_ = os.Remove(p)
}

// TestAttackRaceDelete: a directory inside a tree being removed swapped,
// while DELETE ?recursive=true runs, for a link to the outside directory.
// The naive removal descends through the link and removes the sentinel;
// the handler removes the link or the directory, never what is outside.
func TestAttackRaceDelete(t *testing.T) {
	plant := func(f fix) (string, string) {
		v := filepath.Join(f.root, "v")
		must(t, os.RemoveAll(v)) // never follows a link: what a lost race left is removed itself
		writeFile(t, filepath.Join(v, "sub", "a"), "a")
		writeFile(t, filepath.Join(v, "sub", "b", "c"), "c")
		must(t, os.Symlink(f.outside, filepath.Join(v, "subl")))
		return filepath.Join(v, "sub"), filepath.Join(v, "subl")
	}
	ctl, _ := attackFix(t, nil)
	sub, subl := plant(ctl)
	stop := exchanging(t, sub, subl)
	// The naive removal must line up twice with the swapper (descend
	// through the link, then remove through it): 20 to 90 tries here,
	// idle; once, under CI's load as nobody, more than 6 s of them. It
	// stops at its first win, so a long budget costs only a loaded host.
	removed := within(16*raceBudget, func(int) bool {
		naiveRemoveAll(filepath.Join(ctl.root, "v"))
		if _, err := os.Lstat(filepath.Join(ctl.outside, "sentinel")); err != nil {
			return true
		}
		stop()
		sub, subl = plant(ctl)
		stop = exchanging(t, sub, subl)
		return false
	})
	stop()
	if !removed {
		t.Fatal("control: the naive removal never descended through the swapped link")
	}

	f, _ := attackFix(t, nil)
	sub, subl = plant(f)
	stop = exchanging(t, sub, subl)
	statuses := map[int]int{}
	defer func() { t.Logf("statuses %v", statuses) }()
	until(func(int) bool {
		statuses[f.do(t, http.MethodDelete, "/v1/files/v?recursive=true", nil).status]++
		if _, err := os.Lstat(filepath.Join(f.outside, "sentinel")); err != nil {
			return true
		}
		stop()
		sub, subl = plant(f)
		stop = exchanging(t, sub, subl)
		return false
	})
	stop()
	if statuses[http.StatusNoContent] == 0 {
		t.Errorf("the race was not exercised: no removal succeeded: %v", statuses)
	}
	f.checkOutside(t)
}

// TestAttackRacesNonRoot runs the races again as an unprivileged user.
func TestAttackRacesNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestAttackRace(Get|Put|Delete)$")
}
