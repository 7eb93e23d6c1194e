package landlock

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// TestGitFromNothing: real git works in a workspace without a .git under
// the name guard, with the guard's acting threads in the command's
// Landlock domain (the name attacks are in TestAttacks).
func TestGitFromNothing(t *testing.T) { inittest.GitFromNothing(t, confineScript) }
