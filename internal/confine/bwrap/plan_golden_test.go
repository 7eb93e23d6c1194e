package bwrap_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/viewplan/plantest"
	"github.com/ringfence/ringfence/policy"
)

// The argv, pins and enforcement this backend makes from the view plan
// are the ones it made when it derived the view itself (recorded before
// the view plan existed; re-recorded when the shim stopped being bound,
// which changed only the shim: its path, and the bind it no longer gets), over random policies,
// host facts and options.
func TestPlanGolden(t *testing.T) {
	stat := func(s string) (bwrap.Kind, error) { return bwrap.Kind(plantest.Kind(s)), nil }
	list := func(dir string) ([]bwrap.Entry, error) {
		var out []bwrap.Entry
		for _, e := range plantest.Entries(dir) {
			k := bwrap.File
			switch {
			case e.Link:
				k = bwrap.Link
			case e.Dir:
				k = bwrap.Dir
			}
			out = append(out, bwrap.Entry{Name: e.Name, Kind: k, Target: e.Target})
		}
		return out, nil
	}
	plantest.Golden(t, "testdata/plan_golden.txt", func(i int, r *rand.Rand, p *policy.Policy) string {
		opts := bwrap.ArgOptions{Stat: stat, Shim: "/proc/self/fd/7", ShimFD: 3,
			SuperviseUnix: r.Intn(2) == 0, HandoffFD: 5, ResolvConf: "/s/resolv.conf"}
		if r.Intn(3) != 0 {
			opts.List = list
		}
		if r.Intn(2) == 0 {
			opts.OpenFDBase = 100
		}
		pins := bwrap.PinDirs(p)
		var roots []string
		for j, d := range pins {
			roots = append(roots, bwrap.PinRoot(p, d))
			if r.Intn(3) != 0 {
				if opts.Pins == nil {
					opts.Pins = map[string]int{}
				}
				opts.Pins[d] = 10 + j
			}
		}
		req := confine.Request{Policy: p, Argv: []string{"/bin/true"}, Env: []string{"PATH=/bin"}}
		if r.Intn(2) == 0 {
			req.MountPath = "/workspace"
		}
		if r.Intn(3) == 0 {
			req.Home = &confine.Home{Dir: "/home/u", Cache: "/home/u/.cache/rf"}
		}
		spec, err := bwrap.Plan(p, req, opts)
		// The golden was recorded before Enforcement had its Resources
		// and Scratch fields, which the run fills (empty at planning
		// time): they are left out of the digest so that it still
		// compares the translation with the derivation it replaced.
		if spec.Enforcement.Resources != "" || spec.Enforcement.Scratch != "" {
			return fmt.Sprintf("planning filled the run's fields: %+v", spec.Enforcement)
		}
		out := fmt.Sprintf("%#v\n%#v\n%#v\n%v", pins, roots, spec, err)
		return strings.NewReplacer(`, Resources:""`, "", `, Scratch:""`, "").Replace(out)
	})
}
