package linux

import (
	"io"
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// linuxGaps are the attacks this backend does not stop, each reported in
// its Enforcement (see TestEnforcementReportsMissingProtected).
var linuxGaps = map[string]string{}

func confineScript(t *testing.T, e *inittest.Env, p *policy.Policy, script string, stdin *os.File) inittest.Result {
	t.Helper()
	prov := New(Options{})
	testenv.Need(t, "linux backend", prov.Available())
	c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script}, Policy: p, Env: e.Vars()})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	var in *os.File
	if stdin != nil {
		in = stdin
	}
	res, err := inittest.Run(c, fileReader(in))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func TestAttacks(t *testing.T) {
	inittest.RunSuite(t, confineScript, linuxGaps)
}

// fileReader keeps a nil *os.File from becoming a non-nil io.Reader.
func fileReader(f *os.File) io.Reader {
	if f == nil {
		return nil
	}
	return f
}
