package landlock

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/viewplan"
	"github.com/ringfence/ringfence/internal/confine/viewplan/plantest"
	"github.com/ringfence/ringfence/policy"
)

// The plan and enforcement this backend makes from the view plan are the
// ones it made when it derived them itself (recorded before the view plan
// existed), over random policies.
func TestPlanGolden(t *testing.T) {
	plantest.Golden(t, "testdata/plan_golden.txt", func(i int, r *rand.Rand, p *policy.Policy) string {
		// As Confine does: one view plan for the plan, the kept paths
		// and the enforcement.
		exists := func(s string) bool { return plantest.Kind(s) != 0 }
		vp := viewplan.New(p)
		plan := newPlan(vp)
		kept := keepExisting(vp, plan, exists)
		e := enforce(vp, kept, 7)
		// The exported forms, each building its own, agree.
		if w := NewPlan(p); !reflect.DeepEqual(w, plan) {
			return fmt.Sprintf("NewPlan %#v, from the shared view plan %#v", w, plan)
		}
		if w := KeepExisting(p, plan, exists); !reflect.DeepEqual(w, kept) {
			return fmt.Sprintf("KeepExisting %#v, from the shared view plan %#v", w, kept)
		}
		if w := Enforce(p, kept, 7); !reflect.DeepEqual(w, e) {
			return fmt.Sprintf("Enforce %#v, from the shared view plan %#v", w, e)
		}
		// The golden was recorded before Enforcement had its Resources
		// and Scratch fields, which the run fills (empty here): they are
		// left out so the digest still compares the translation with the
		// derivation it replaced.
		if e.Resources != "" || e.Scratch != "" {
			return fmt.Sprintf("planning filled the run's fields: %+v", e)
		}
		out := fmt.Sprintf("%#v\n%#v\n%#v\n%#v", plan, kept, unprotected(vp, kept), e)
		return strings.NewReplacer(`, Resources:""`, "", `, Scratch:""`, "").Replace(out)
	})
}
