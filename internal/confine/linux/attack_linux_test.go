package linux

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// linuxGaps are the attacks this backend does not stop, each reported in
// its Enforcement (see TestEnforcementReportsMissingProtected).
var linuxGaps = map[string]string{}

// confineScript runs a script under a fresh linux provider.
var confineScript = inittest.ProviderConfiner("linux", func() confine.Provider { return New(Options{}) })

func TestAttacks(t *testing.T) {
	inittest.RunSuite(t, confineScript, linuxGaps)
}
