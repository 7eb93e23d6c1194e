package backends

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initimage"
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
	// probed: Available ran the full probe, so Confine goes to the full
	// provider, which knows what the probe found (a refused fresh /proc).
	probed bool
	// quickWith makes the quick provider for the steps a marker records
	// as refused here (nil: keep Provider).
	quickWith func(linux.Degraded) confine.Provider

	// once: Available decides once per process. Concurrent commands (the
	// MCP server's) ask it at once, and it sets Provider and probed, which
	// Name and Confine then read: deciding again would race with them.
	once  sync.Once
	avail error
}

func newProbeCached(o linux.Options) confine.Provider {
	quickWith := func(d linux.Degraded) confine.Provider {
		quick := o
		quick.Quick, quick.Degraded = true, d
		return linux.New(quick)
	}
	return &probeCached{Provider: quickWith(linux.Degraded{}), full: linux.New(o), marker: probeMarker(), quickWith: quickWith}
}

// Available uses the marker when present, else probes fully and leaves the
// marker on success. Only an empty marker (or "{}": nothing refused) is
// used; a host where the probe had to give steps up (linux.Degraded: a
// container's masked /proc) is probed fully by each process, since a
// marker naming such steps could be planted to weaken the view.
func (p *probeCached) Available() error {
	p.once.Do(func() { p.avail = p.decide() })
	return p.avail
}

func (p *probeCached) decide() error {
	if p.marker != "" {
		if data, err := os.ReadFile(p.marker); err == nil {
			var d linux.Degraded
			// Only a marker that records nothing refused is trusted: one
			// that gives steps up (the host's /proc in the view) would let
			// whoever can write the cache directory — a confined command
			// whose workspace holds it, e.g. one run in the home directory
			// — weaken every later sandbox of this boot. Such a host is
			// probed fully each time instead (see the package threat model).
			if len(data) == 0 || json.Unmarshal(data, &d) == nil && d == (linux.Degraded{}) {
				if p.quickWith != nil {
					p.Provider = p.quickWith(d)
				}
				return p.Provider.Available()
			}
		}
	}
	err := p.full.Available()
	p.probed = true
	var d linux.Degraded
	if dp, ok := p.full.(interface{ Degraded() linux.Degraded }); ok {
		d = dp.Degraded()
	}
	if err == nil && p.marker != "" && d == (linux.Degraded{}) {
		// Nothing refused: an empty marker (a degraded result is never
		// trusted from a file, so it is not written).
		if os.MkdirAll(filepath.Dir(p.marker), 0o700) == nil {
			_ = os.WriteFile(p.marker, nil, 0o600)
		}
	}
	return err
}

// Confine uses the provider whose Available decided: the full one knows
// what its probe found (the steps this host refuses: the host's /proc where a fresh one is
// refused, no host name); the quick one assumes the ordinary host the marker vouches for.
func (p *probeCached) Confine(req confine.Request) (*confine.Cmd, error) {
	_ = p.Available() // settles which provider decides
	if p.probed {
		return p.full.Confine(req)
	}
	return p.Provider.Confine(req)
}

// probeMarker names the marker for this boot, user, mount namespace (a
// container sharing the host's cache directory is another place: its
// runtime may refuse what the host allows) and init (initimage.ID: another
// ringfence's init is probed again, not vouched for by this one's).
func probeMarker() string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	dir, derr := os.UserCacheDir()
	mnt, merr := os.Readlink("/proc/self/ns/mnt")
	if err != nil || derr != nil || merr != nil {
		return ""
	}
	id := strings.TrimSpace(string(boot))
	return filepath.Join(dir, "ringfence", "userns-ok-"+id+"-"+strconv.Itoa(os.Getuid())+"-"+nsID(mnt)+"-"+initimage.ID())
}

// nsID is the inode of a namespace link ("mnt:[4026531841]" → 4026531841).
func nsID(link string) string {
	if i, j := strings.IndexByte(link, '['), strings.IndexByte(link, ']'); i >= 0 && j > i {
		return link[i+1 : j]
	}
	return "unknown"
}
