package ringfence

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/linux"
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

type hostProcProvider struct{ countingProvider }

func (*hostProcProvider) Degraded() linux.Degraded { return linux.Degraded{HostProc: true} }
func (*hostProcProvider) Confine(confine.Request) (*confine.Cmd, error) {
	return &confine.Cmd{Backend: "full"}, nil
}

// TestProbeCachedHostProc: where the full probe found a fresh /proc refused
// (a container), no marker is left (the quick check could not know) and
// Confine goes to the provider that knows.
func TestProbeCachedHostProc(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "m")
	p := &probeCached{Provider: &countingProvider{}, full: &hostProcProvider{}, marker: marker}
	if err := p.Available(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a host-/proc probe left a marker: the next run's quick check would mount a fresh /proc and fail")
	}
	cmd, err := p.Confine(confine.Request{})
	if err != nil || cmd.Backend != "full" {
		t.Errorf("Confine went to the quick provider after a full probe: %v %v", cmd, err)
	}
}

func TestNsID(t *testing.T) {
	if got := nsID("mnt:[4026531841]"); got != "4026531841" {
		t.Errorf("nsID = %q", got)
	}
	if got := nsID("garbage"); got != "unknown" {
		t.Errorf("nsID(garbage) = %q", got)
	}
}
