package landlock

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// A dot-relative PATH entry never makes the init run a program planted in
// the workspace.
func TestPlantedOnPath(t *testing.T) { inittest.PlantedOnPath(t, New(Options{}), "landlock") }
