package confine_test

import (
	"errors"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// One type for every backend's "cannot run here": the text names the
// backend (probe reports and the chain's list quote it) and the sentinel
// holds, so callers tell unavailable from refused.
func TestBackendUnavailable(t *testing.T) {
	err := error(&confine.BackendUnavailable{Backend: "landlock", Reason: "the kernel has no Landlock"})
	if got, want := err.Error(), "landlock backend unavailable: the kernel has no Landlock"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if !errors.Is(err, policy.ErrUnavailable) || errors.Is(err, policy.ErrPolicy) {
		t.Fatalf("sentinels: %v", err)
	}
	c := confine.Auto(&fake{name: "stub", avail: err})
	if err := c.Available(); err == nil || err.Error() != "no sandbox backend can enforce this policy here (stub: landlock backend unavailable: the kernel has no Landlock)" {
		t.Fatalf("chain: %v", err)
	}
}
