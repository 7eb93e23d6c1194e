//go:build linux

package inittest

import (
	"io"
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// LandlockGaps are the attacks the landlock backend does not stop, each
// reported in its Enforcement; every suite that runs that backend passes
// them (its own tests, and initimage's with the carried init).
var LandlockGaps = map[string]string{
	"list-denied": "names beneath a directory on the way to a denied path stay listable, the denied directory's own included; contents are not readable",
}

// ProviderConfiner is the Confiner of a backend: a fresh provider from
// newProvider per script (it must work here: testenv.Need, so
// RINGFENCE_REQUIRE_ALL turns a missing kernel feature into a failure),
// the script run by /bin/sh with the Env's variables.
func ProviderConfiner(name string, newProvider func() confine.Provider) Confiner {
	return func(t *testing.T, e *Env, p *policy.Policy, script string, stdin *os.File) Result {
		t.Helper()
		prov := newProvider()
		testenv.Need(t, name+" backend", prov.Available())
		c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script}, Policy: p, Env: e.Vars()})
		if err != nil {
			t.Fatalf("Confine: %v", err)
		}
		var in io.Reader // a nil *os.File must not become a non-nil Reader
		if stdin != nil {
			in = stdin
		}
		res, err := Run(c, in)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		return res
	}
}
