package execstage_test

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// The stage's own tests again as nobody: agents run as both, and nothing
// the stage does (its Landlock layer, no_new_privs, its report) may need
// root.
func TestAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestStageRunsTheCommand|TestStageScopesTheCommand|TestStageKeepsRenames|TestStageReportsFailures)$")
}
