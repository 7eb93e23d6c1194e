package ringfence

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
)

type countingProvider struct {
	confine.Provider
	calls int
	err   error
}

func (c *countingProvider) Available() error { c.calls++; return c.err }

func TestProbeCachedProbesFullyOncePerBoot(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ringfence", "userns-ok-boot-0")
	quick, full := &countingProvider{}, &countingProvider{}
	first := &probeCached{Provider: quick, full: full, marker: marker}
	if err := first.Available(); err != nil || full.calls != 1 || quick.calls != 0 {
		t.Fatalf("first: err %v, full %d quick %d", err, full.calls, quick.calls)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("a successful full probe left no marker: %v", err)
	}
	second := &probeCached{Provider: quick, full: full, marker: marker}
	if err := second.Available(); err != nil || full.calls != 1 || quick.calls != 1 {
		t.Fatalf("second: err %v, full %d quick %d; want the quick check only", err, full.calls, quick.calls)
	}
}

func TestProbeCachedLeavesNoMarkerOnFailure(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "m")
	refused := errors.New("user namespaces refused")
	p := &probeCached{Provider: &countingProvider{}, full: &countingProvider{err: refused}, marker: marker}
	if err := p.Available(); !errors.Is(err, refused) {
		t.Fatalf("err %v, want the probe's refusal", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a failed probe left a marker: the next run would skip the probe")
	}
}
