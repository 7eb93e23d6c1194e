package conformance

import (
	"context"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/testenv"
)

// RunT runs the suite under a Go test and reports each check as its own
// subtest of t (one t.Run per check, named as in the report). The checks
// themselves run as in Run, opts.Parallel at a time, so the suite's speed
// does not depend on the test binary's -parallel. A failed check fails its
// subtest with the detail; a skipped one skips it with the reason — or,
// under RINGFENCE_REQUIRE_ALL=1 (CI), fails it, since a skipped check
// observed nothing; a claim the sandbox does not make passes and logs
// "not claimed".
func RunT(t *testing.T, create func() (ringfence.Sandbox, error), opts Options) Report {
	t.Helper()
	rep := Run(context.Background(), create, opts)
	for _, c := range rep.Checks {
		t.Run(c.Name, func(t *testing.T) {
			switch {
			case c.Skipped && testenv.RequireAll():
				t.Error("skipped under RINGFENCE_REQUIRE_ALL=1 (a skipped check observed nothing): " + c.Detail)
			case c.Skipped:
				t.Skip(c.Detail)
			case !c.OK:
				t.Error(c.Detail)
			case c.Detail != "":
				t.Log(c.Detail)
			}
		})
	}
	return rep
}
