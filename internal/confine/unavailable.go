package confine

import "github.com/ringfence/ringfence/policy"

// BackendUnavailable says why one backend cannot run on this host (its
// Available error): the kernel lacks what it needs, or a probe of it
// failed. The chain lists it among the backends tried (UnavailableError).
// It wraps policy.ErrUnavailable.
type BackendUnavailable struct {
	Backend string // the backend's name: "linux", "landlock"
	Reason  string
}

func (e *BackendUnavailable) Error() string {
	return e.Backend + " backend unavailable: " + e.Reason
}

// Unwrap makes errors.Is(err, policy.ErrUnavailable) hold.
func (e *BackendUnavailable) Unwrap() error { return policy.ErrUnavailable }
