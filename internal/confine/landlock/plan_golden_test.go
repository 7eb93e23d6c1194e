package landlock

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/viewplan/plantest"
	"github.com/ringfence/ringfence/policy"
)

// The plan and enforcement this backend makes from the view plan are the
// ones it made when it derived them itself (recorded before the view plan
// existed), over random policies.
func TestPlanGolden(t *testing.T) {
	plantest.Golden(t, "testdata/plan_golden.txt", func(i int, r *rand.Rand, p *policy.Policy) string {
		plan := NewPlan(p)
		kept := KeepExisting(p, plan, func(s string) bool { return plantest.Kind(s) != 0 })
		e := Enforce(p, kept, 7)
		// The golden was recorded before Enforcement had its Resources
		// and Scratch fields, which the run fills (empty here): they are
		// left out so the digest still compares the translation with the
		// derivation it replaced.
		if e.Resources != "" || e.Scratch != "" {
			return fmt.Sprintf("planning filled the run's fields: %+v", e)
		}
		out := fmt.Sprintf("%#v\n%#v\n%#v\n%#v", plan, kept, unprotected(p, kept), e)
		return strings.NewReplacer(`, Resources:""`, "", `, Scratch:""`, "").Replace(out)
	})
}
