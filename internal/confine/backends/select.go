package backends

import (
	"os"
	"path/filepath"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/landlock"
	"github.com/ringfence/ringfence/internal/confine/linux"
)

// Names are the backend names Select accepts besides "auto", strongest
// first; "auto" picks the first that works on this host.
var Names = []string{linux.Name, bwrap.Name, landlock.Name}

// Select resolves a backend name. "auto" (or "") is the strongest that
// works here; a named backend is used alone and, when it cannot work here,
// the error is *confine.UnavailableError (never a silent fallback).
func Select(name string) (confine.Provider, error) {
	return confine.Select(name, providers()...)
}

// TraitsOf is what the backend called name declares it isolates
// (confine.Traits), without probing this host; zero (nothing claimed) for
// a name no backend has.
func TraitsOf(name string) confine.Traits {
	for _, p := range providers() {
		if p.Name() == name {
			return p.Traits()
		}
	}
	return confine.Traits{}
}

// providers are the backends in order of strength. RINGFENCE_SIMULATE_NO_USERNS
// (for tests and demonstrations) makes the native namespace backend report
// unavailable, as on a host that forbids user namespaces. It can only take a
// backend away — the result is a weaker backend, reported as such, or a
// refusal — and it is read from ringfence's own environment, which the
// person running ringfence controls and a confined command cannot set.
func providers() []confine.Provider {
	var lo linux.Options
	if reason := os.Getenv("RINGFENCE_SIMULATE_NO_USERNS"); reason != "" {
		lo.ForceUnavailable = "simulated: " + reason
	}
	// NoExpand: bwrap could protect a protected path that does not exist yet
	// only by turning its writable root into a read-only tmpfs with every
	// entry bound back — and then nothing could be created directly in the
	// workspace root (`echo x > notes.md` would fail). Like the linux
	// backend, it leaves such a path unprotected and reports Files partial,
	// naming it, instead of silently breaking ordinary work.
	bo := bwrap.Options{NoExpand: true}
	if dir, err := os.UserCacheDir(); err == nil {
		bo.ProbeCache = filepath.Join(dir, "ringfence") // probe bwrap once per boot, as linux does
	}
	return []confine.Provider{linuxProvider(lo), bwrap.New(bo), landlock.New(landlock.Options{})}
}

// linuxProvider probes once per boot (see probeCached), unless a simulation
// forces the backend unavailable, which must never be cached.
func linuxProvider(o linux.Options) confine.Provider {
	if o.ForceUnavailable != "" {
		return linux.New(o)
	}
	return newProbeCached(o)
}
