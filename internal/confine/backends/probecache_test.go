package backends

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

// TestProbeCachedHostProc: where the full probe found steps refused (a
// container's masked /proc), the marker records them and the next quick
// provider is made with them; the first run's Confine goes to the full
// provider, which knows.
func TestProbeCachedHostProc(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "m")
	var got []linux.Degraded
	quickWith := func(d linux.Degraded) confine.Provider { got = append(got, d); return &countingProvider{} }
	p := &probeCached{Provider: &countingProvider{}, full: &hostProcProvider{}, marker: marker, quickWith: quickWith}
	if err := p.Available(); err != nil {
		t.Fatal(err)
	}
	cmd, err := p.Confine(confine.Request{})
	if err != nil || cmd.Backend != "full" {
		t.Errorf("Confine went to the quick provider after a full probe: %v %v", cmd, err)
	}
	next := &probeCached{Provider: &countingProvider{}, full: &hostProcProvider{}, marker: marker, quickWith: quickWith}
	if err := next.Available(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].HostProc {
		t.Errorf("the next run's quick provider was made with %v, want the recorded HostProc", got)
	}
	// A marker that is not a record (damaged) is no marker: probe again.
	if err := os.WriteFile(marker, []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	full := &hostProcProvider{}
	third := &probeCached{Provider: &countingProvider{}, full: full, marker: marker, quickWith: quickWith}
	if err := third.Available(); err != nil || full.calls != 1 {
		t.Errorf("a damaged marker was trusted: err %v, full probes %d", err, full.calls)
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
