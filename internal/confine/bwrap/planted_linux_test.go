package bwrap_test

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// A dot-relative PATH entry never makes the exec shim run a program
// planted in the workspace (it used to accept exec.ErrDot results).
func TestPlantedOnPath(t *testing.T) { inittest.PlantedOnPath(t, bwrap.New(bwrap.Options{}), "bwrap") }
