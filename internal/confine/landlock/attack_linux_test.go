package landlock

import (
	"io"
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// landlockGaps are the attacks this backend does not stop, each reported
// in its Enforcement.
var landlockGaps = map[string]string{
	"list-denied": "names beneath a directory on the way to a denied path stay listable, the denied directory's own included; contents are not readable",
}

func confineScript(t *testing.T, e *inittest.Env, p *policy.Policy, script string, stdin *os.File) inittest.Result {
	t.Helper()
	prov := New(Options{})
	testenv.Need(t, "landlock backend", prov.Available())
	c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script}, Policy: p, Env: e.Vars()})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	var in io.Reader
	if stdin != nil {
		in = stdin
	}
	res, err := inittest.Run(c, in)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func TestAttacks(t *testing.T) {
	inittest.RunSuite(t, confineScript, landlockGaps)
}
