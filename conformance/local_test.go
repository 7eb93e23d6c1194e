package conformance_test

import (
	"testing"

	"github.com/ringfence/ringfence/conformance"
	"github.com/ringfence/ringfence/internal/testenv"
)

// Every backend ringfence ships passes the suite where it is available
// (under RINGFENCE_REQUIRE_ALL=1, every one must be, and nothing may skip).
func TestLocalBackends(t *testing.T) {
	for _, b := range []string{"linux", "landlock", "bwrap"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			testenv.Need(t, "backend "+b, conformance.LocalAvailable(b))
			rep := conformance.RunT(t, conformance.Local(b), conformance.Options{Name: b})
			if skipped := rep.Skipped(); testenv.RequireAll() && len(skipped) > 0 {
				t.Errorf("RINGFENCE_REQUIRE_ALL=1 and %d checks could not observe what they check: %+v", len(skipped), skipped)
			}
		})
	}
}
