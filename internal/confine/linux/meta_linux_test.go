package linux

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// TestOrdinaryMeta: the set-id, metadata and socket rules leave everyday
// work alone (the attacks are in inittest.MetaAttacks, run by TestAttacks).
func TestOrdinaryMeta(t *testing.T) {
	inittest.RunOrdinary(t, confineScript)
}
