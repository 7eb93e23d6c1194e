package bwrap_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/bwrap"
)

// countingBwrap is a fake bwrap that records each run and answers like
// bwrap 0.8.0, or fails every sandbox when fail is set.
func countingBwrap(t *testing.T, fail bool) (path, log string) {
	t.Helper()
	dir := t.TempDir()
	path, log = dir+"/bwrap", dir+"/runs"
	script := "#!/bin/sh\necho run >> " + log + "\nif [ \"$1\" = --version ]; then echo 'bubblewrap 0.8.0'; exit 0; fi\n"
	if fail {
		script += "echo 'bwrap: No permissions to create new namespace' >&2; exit 1\n"
	}
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

func runs(log string) int { return strings.Count(content(log), "run\n") }

// TestProbeCache: a successful probe is remembered, so the next provider
// runs bwrap zero times instead of twice; a change to the binary, a failed
// probe and a marker that does not look like a version all mean a full
// probe.
func TestProbeCache(t *testing.T) {
	self, _ := os.Executable()
	cache := t.TempDir() + "/cache"
	fake, log := countingBwrap(t, false)
	avail := func(path string) *bwrap.Provider {
		t.Helper()
		p := bwrap.New(bwrap.Options{Path: path, Self: self, ProbeCache: cache})
		if err := p.Available(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	avail(fake)
	if n := runs(log); n != 2 {
		t.Fatalf("the first probe ran bwrap %d times, want 2 (version, trial)", n)
	}
	if p := avail(fake); runs(log) != 2 || p.Version() != "0.8.0" {
		t.Fatalf("the second probe ran bwrap (%d runs in all) or lost the version (%q)", runs(log), p.Version())
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(fake, later, later); err != nil {
		t.Fatal(err)
	}
	if avail(fake); runs(log) != 4 {
		t.Fatalf("a changed binary was not probed again (%d runs)", runs(log))
	}
	markers, _ := filepath.Glob(cache + "/bwrap-ok-*")
	for _, m := range markers {
		if err := os.WriteFile(m, []byte("0.8.0\nrm -rf /"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if p := avail(fake); runs(log) != 6 || p.Version() != "0.8.0" {
		t.Fatalf("a malformed marker was believed (%d runs, version %q)", runs(log), p.Version())
	}
	if p := bwrap.New(bwrap.Options{Path: fake, Self: self}); p.Available() != nil || runs(log) != 8 {
		t.Fatalf("without ProbeCache the probe was skipped (%d runs)", runs(log))
	}

	bad, badLog := countingBwrap(t, true)
	for i := 1; i <= 2; i++ {
		if err := bwrap.New(bwrap.Options{Path: bad, Self: self, ProbeCache: cache}).Available(); err == nil {
			t.Fatal("a failing bwrap was available")
		}
		if runs(badLog) != 2*i {
			t.Fatalf("a failed probe was remembered (%d runs after %d probes)", runs(badLog), i)
		}
	}
}
