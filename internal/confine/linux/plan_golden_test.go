package linux

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/viewplan/plantest"
	"github.com/ringfence/ringfence/policy"
)

// The plan this backend makes from the view plan is the one it made when
// it derived the view itself (recorded before the view plan existed), over
// random policies and view options.
func TestPlanGolden(t *testing.T) {
	plantest.Golden(t, "testdata/plan_golden.txt", func(i int, r *rand.Rand, p *policy.Policy) string {
		var o ViewOptions
		if r.Intn(2) == 0 {
			o.MountPath = "/workspace"
		}
		switch r.Intn(3) {
		case 1:
			o.Home = &confine.Home{Dir: "/home/u", Upper: "/s/up", Work: "/s/wk", Hide: []string{"/home/u/.ringfence"}, Cache: "/s/cache"}
		case 2:
			o.Home = &confine.Home{Dir: "/home/u", Cache: "/s/cache"}
			o.HomeCacheAt = "/tmp/.cache"
		}
		o.HostProc = r.Intn(4) == 0
		o.ScratchBytes = int64(r.Intn(2)) << 20
		return fmt.Sprintf("%#v", NewPlanWith(p, o))
	})
}
