package landlock

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// confineScript runs a script under a fresh landlock provider.
var confineScript = inittest.ProviderConfiner("landlock", func() confine.Provider { return New(Options{}) })

func TestAttacks(t *testing.T) {
	inittest.RunSuite(t, confineScript, inittest.LandlockGaps)
}
