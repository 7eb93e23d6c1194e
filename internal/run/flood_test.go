//go:build linux

package run

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
)

// floodGiB is how much the flood test streams: 1 GiB by default,
// RF_RUN_FLOOD_GIB=10 for the full figure (bench/run-flood.sh).
func floodGiB() int {
	if n, err := strconv.Atoi(os.Getenv("RF_RUN_FLOOD_GIB")); err == nil && n > 0 {
		return n
	}
	return 1
}

// rss returns this process's resident set in bytes.
func rss(t testing.TB) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// The supervisor's memory stays flat whatever the command prints: `yes`
// streams N GiB under a 1 MiB ceiling (kept running past it, so the whole
// flood is drained, counted and passed through live) while this process's
// RSS is sampled.
func TestFloodMemoryIsBounded(t *testing.T) {
	gib := int64(floodGiB())
	total := gib << 30
	base := rss(t)
	var peak atomic.Int64
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				if r := rss(t); r > peak.Load() {
					peak.Store(r)
				}
			}
		}
	}()
	c := &confine.Cmd{Path: "/bin/sh", Args: []string{"sh", "-c", "yes ringfence | head -c " + strconv.FormatInt(total, 10)},
		Env: []string{"PATH=/usr/bin:/bin"}, TreeKill: confine.KillProcessGroup}
	r := mustRun(t, c, Options{KeepRunningPastCeiling: true, Stdout: io.Discard, Timeout: 10 * time.Minute})
	close(stop)
	if r.Truncated == nil || r.Truncated.Stdout != total || len(r.Stdout) != 1<<20 {
		t.Fatalf("truncated %+v captured %d, want %d seen and 1 MiB kept", r.Truncated, len(r.Stdout), total)
	}
	growth := peak.Load() - base
	t.Logf("streamed %d GiB in %d ms; RSS base %d KiB, peak growth %d KiB", gib, r.DurationMs, base>>10, growth>>10)
	bound := int64(8 << 20)
	if raceEnabled {
		bound = 64 << 20 // shadow memory; still far below the volume streamed
	}
	if growth > bound {
		t.Fatalf("RSS grew by %d KiB while streaming: memory is not bounded", growth>>10)
	}
}
