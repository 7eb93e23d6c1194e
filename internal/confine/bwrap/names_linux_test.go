package bwrap_test

import (
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/policy"
)

// bwrapScript is an inittest.Confiner for this backend, its exec shim
// running the name guard.
func bwrapScript(t *testing.T, e *inittest.Env, p *policy.Policy, script string, _ *os.File) inittest.Result {
	t.Helper()
	c, err := provider(t).Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script}, Policy: p, Env: e.Vars()})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	res, err := inittest.Run(c, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// TestNameAttacks: names protected at every depth (nested repositories,
// hook names, agent configs, config.lock kept open, …) under bwrap.
func TestNameAttacks(t *testing.T) { inittest.RunNameAttacks(t, bwrapScript) }

// TestGitFromNothing: real git works in a workspace without a .git.
func TestGitFromNothing(t *testing.T) { inittest.GitFromNothing(t, bwrapScript) }
