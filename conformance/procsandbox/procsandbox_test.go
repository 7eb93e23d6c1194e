package procsandbox_test

import (
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/conformance"
	"github.com/ringfence/ringfence/conformance/procsandbox"
)

// The reference adapter passes the suite: it claims nothing it lacks.
func TestConformance(t *testing.T) {
	conformance.RunT(t, func() (ringfence.Sandbox, error) {
		return procsandbox.New(procsandbox.Options{Root: t.TempDir()})
	}, conformance.Options{Name: "procsandbox"})
}
