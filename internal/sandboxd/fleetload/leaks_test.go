package fleetload

import (
	"strings"
	"testing"
	"time"
)

// Each leak kind, seen from the two snapshots, must be reported; the same
// state twice, or fewer of anything, is not a leak.
func TestLiveLeaks(t *testing.T) {
	base := snapshot{
		Procs:      map[procKey]string{{10, 1}: "10 S ringfence __confine"},
		FDs:        []string{"/dev/null", "socket:[1]", "pipe:[2]"},
		HeldDirs:   []string{"/tmp/ringfence-tmp-A"},
		MountTotal: 31,
	}
	if l := liveLeaks(base, base, 0); len(l) != 0 {
		t.Fatalf("the baseline against itself: %q", l)
	}
	fewer := base
	fewer.FDs = base.FDs[:2]
	if l := liveLeaks(base, fewer, 0); len(l) != 0 {
		t.Fatalf("fewer descriptors: %q", l)
	}
	replaced := base // a session replaced: another init, same count
	replaced.Procs = map[procKey]string{{11, 5}: "11 S ringfence __confine"}
	if l := liveLeaks(base, replaced, 0); len(l) != 0 {
		t.Fatalf("a replaced session: %q", l)
	}
	for _, tc := range []struct {
		name, want string
		mutate     func(*snapshot)
		slack      int
	}{
		{"process", "processes: 1 descendants after warm-up, 2 after the run; new: 12 S sleep 600", func(s *snapshot) {
			s.Procs = map[procKey]string{{10, 1}: "10 S ringfence __confine", {12, 9}: "12 S sleep 600"}
		}, 0},
		{"zombie", "zombie descendant 10 Z", func(s *snapshot) {
			s.Procs = map[procKey]string{{10, 1}: "10 Z"}
		}, 0},
		{"descriptor", "new targets: socket:[1]", func(s *snapshot) {
			s.FDs = append(append([]string{}, base.FDs...), "socket:[1]") // a repeat counts
		}, 0},
		{"descriptors past the slack", "descriptors: 3 after warm-up, 6 after the run (slack 2)", func(s *snapshot) {
			s.FDs = append(append([]string{}, base.FDs...), "a", "b", "c")
		}, 2},
		{"held dir", "newly held after the run: /tmp/ringfence-tmp-B", func(s *snapshot) {
			s.HeldDirs = []string{"/tmp/ringfence-tmp-A", "/tmp/ringfence-tmp-B"}
		}, 0},
		{"mount", "new under the server's directories after the run: /tmp/s0/root/mnt", func(s *snapshot) {
			s.Mounts, s.MountTotal = []string{"/tmp/s0/root/mnt"}, 32
		}, 0},
		{"mount in its own namespace", "own mount namespace had 31 mounts after warm-up, 32", func(s *snapshot) {
			s.MountTotal, s.OwnNS = 32, true
		}, 0},
	} {
		now := base
		now.FDs = append([]string{}, base.FDs...)
		tc.mutate(&now)
		l := liveLeaks(base, now, tc.slack)
		if len(l) != 1 || !strings.Contains(l[0], tc.want) {
			t.Errorf("%s: liveLeaks = %q, want one containing %q", tc.name, l, tc.want)
		}
	}
	hostMoved := base // another process mounted elsewhere in the shared namespace
	hostMoved.MountTotal = 40
	if l := liveLeaks(base, hostMoved, 0); len(l) != 0 {
		t.Errorf("the host's mount count moved, not under the server's directories: %q", l)
	}
	within := base
	within.FDs = append(append([]string{}, base.FDs...), "a", "b")
	if l := liveLeaks(base, within, 2); len(l) != 0 {
		t.Errorf("two more descriptors within a slack of 2: %q", l)
	}
}

func TestAfterShutdownLeaks(t *testing.T) {
	if l := (afterShutdown{}).leaks(); len(l) != 0 {
		t.Fatalf("nothing left: %q", l)
	}
	a := afterShutdown{Alive: []string{"12 S sleep"}, Orphans: []string{"13"}, DirsLeft: []string{"/tmp/ringfence-tmp-A"},
		TmpLeft: []string{"x"}, RootLeft: []string{"fleet/c1/.f1.bin.tmp"}, NewMounts: []string{"/tmp/s0/root"}, ExitStatus: "exit status 1"}
	if l := a.leaks(); len(l) != 7 {
		t.Fatalf("every kind: %q", l)
	}
}

func TestPercentile(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	for _, tc := range []struct{ p, want int }{{50, 50}, {99, 99}, {100, 100}, {1, 1}} {
		if got := percentile(d, tc.p); got != time.Duration(tc.want) {
			t.Errorf("p%d of 1..100 = %d, want %d", tc.p, got, tc.want)
		}
	}
	if got := percentile([]time.Duration{7}, 99); got != 7 {
		t.Errorf("p99 of one value = %d", got)
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of none = %d", got)
	}
	if got := percentile(d[:3], 50); got != 2 {
		t.Errorf("p50 of 1,2,3 = %d", got)
	}
	s := summarize(map[string][]time.Duration{"zz": {3, 1, 2}, KindGet: {5}, KindExecute: {9, 8}})
	if len(s) != 3 || s[0].Kind != KindExecute || s[1].Kind != KindGet || s[2].Kind != "zz" || s[2].P50 != 2 || s[2].Max != 3 {
		t.Errorf("summarize = %+v", s)
	}
}
