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
// container's masked /proc), the first run's Confine goes to the full
// provider, which knows; no marker is left, so the next process probes
// fully again rather than trusting a file to weaken its view.
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
	if _, err := os.Stat(marker); err == nil {
		t.Error("a degraded probe left a marker")
	}
	full := &hostProcProvider{}
	next := &probeCached{Provider: &countingProvider{}, full: full, marker: marker, quickWith: quickWith}
	if err := next.Available(); err != nil || full.calls != 1 || len(got) != 0 {
		t.Errorf("next process: err %v, full probes %d, quick providers made %v; want a full probe", err, full.calls, got)
	}
}

// TestProbeCachedPlantedMarker: a marker is a file anyone who can write
// the cache directory can write. One that records nothing refused is used
// (it can only skip the probe); one that names steps to give up, or is
// damaged, is no marker: the full probe runs and decides.
func TestProbeCachedPlantedMarker(t *testing.T) {
	for _, tc := range []struct {
		data  string
		trust bool
	}{
		{"", true},
		{"{}", true},
		{`{"hostProc":true}`, false},
		{`{"noHostname":true}`, false},
		{`{"hostProc":true,"noHostname":true}`, false},
		{"{garbage", false},
	} {
		marker := filepath.Join(t.TempDir(), "m")
		if err := os.WriteFile(marker, []byte(tc.data), 0o600); err != nil {
			t.Fatal(err)
		}
		var made []linux.Degraded
		quickWith := func(d linux.Degraded) confine.Provider { made = append(made, d); return &countingProvider{} }
		full := &countingProvider{}
		p := &probeCached{Provider: &countingProvider{}, full: full, marker: marker, quickWith: quickWith}
		if err := p.Available(); err != nil {
			t.Fatal(err)
		}
		trusted := full.calls == 0
		if trusted != tc.trust {
			t.Errorf("marker %q: trusted %v, want %v", tc.data, trusted, tc.trust)
		}
		for _, d := range made {
			if d != (linux.Degraded{}) {
				t.Errorf("marker %q: a quick provider was made with steps given up: %+v", tc.data, d)
			}
		}
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
