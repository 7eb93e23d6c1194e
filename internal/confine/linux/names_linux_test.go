package linux

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// TestGitFromNothing: real git works in a workspace without a .git under
// the name guard (the name attacks are in TestAttacks).
func TestGitFromNothing(t *testing.T) { inittest.GitFromNothing(t, confineScript) }
