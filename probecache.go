package ringfence

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/linux"
)

// probeCached is the linux backend whose full probe (starting a process in
// new namespaces) runs once per boot: a successful probe leaves a marker in
// the user's cache directory, named by the kernel's boot id, and later
// processes settle for the kernel-switch check. A one-shot `ringfence run`
// would otherwise pay for two namespaced processes instead of one.
//
// The marker can only make ringfence skip a probe, not a check: if the
// namespaces are refused after all, the run fails closed (the init reports
// the failed set-up stage) — it never runs unconfined. What is lost is
// auto's fallback to a weaker backend, for that run.
type probeCached struct {
	confine.Provider // the quick provider, used once the marker exists
	full             confine.Provider
	marker           string // "" when no cache directory or boot id is known
}

func newProbeCached(o linux.Options) confine.Provider {
	quick := o
	quick.Quick = true
	return &probeCached{Provider: linux.New(quick), full: linux.New(o), marker: probeMarker()}
}

// Available uses the marker when present, else probes fully and leaves the
// marker on success.
func (p *probeCached) Available() error {
	if p.marker != "" {
		if _, err := os.Stat(p.marker); err == nil {
			return p.Provider.Available()
		}
	}
	err := p.full.Available()
	if err == nil && p.marker != "" {
		if os.MkdirAll(filepath.Dir(p.marker), 0o700) == nil {
			_ = os.WriteFile(p.marker, nil, 0o600)
		}
	}
	return err
}

// probeMarker names the marker for this boot, user and binary.
func probeMarker() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	dir, derr := os.UserCacheDir()
	if err != nil || derr != nil {
		return ""
	}
	id := strings.TrimSpace(string(boot))
	return filepath.Join(dir, "ringfence", "userns-ok-"+id+"-"+strconv.Itoa(os.Getuid()))
}
