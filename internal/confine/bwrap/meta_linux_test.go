package bwrap_test

import (
	"io"
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/policy"
)

// confineShared runs an inittest script under bwrap, with or without the
// exec shim's supervision.
func confineShared(noSupervise bool) inittest.Confiner {
	return func(t *testing.T, e *inittest.Env, p *policy.Policy, script string, stdin *os.File) inittest.Result {
		t.Helper()
		provider(t) // root and bwrap, or skip
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		prov := bwrap.New(bwrap.Options{Self: self, NoSupervise: noSupervise})
		c, err := prov.Confine(confine.Request{Argv: []string{"/bin/sh", "-c", script}, Policy: p, Env: e.Vars()})
		if err != nil {
			t.Fatalf("Confine: %v", err)
		}
		var in io.Reader
		if stdin != nil {
			in = stdin
		}
		res, err := inittest.Run(c, in)
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		return res
	}
}

// TestMetaAttacks: the set-id, capability, owner, metadata, vsock,
// datagram and host-bound socket attacks the linux and landlock backends
// meet in their suites, under bwrap (root: bwrap's tests need it).
func TestMetaAttacks(t *testing.T) {
	inittest.RunAttacks(t, inittest.MetaAttacks, confineShared(false), nil)
}

// TestMetaAttacksUnsupervised: without the shim (old kernels, NoSupervise)
// the base filter alone must still refuse what it can decide by itself:
// set-id modes, vsock. Datagrams and host-bound sockets are then reported
// gaps (Enforcement says connect() to host sockets is not refused).
func TestMetaAttacksUnsupervised(t *testing.T) {
	gaps := map[string]string{
		"unix-dgram-sendmsg-to-host":   "no supervision without the shim",
		"unix-dgram-sendto-to-host":    "no supervision without the shim",
		"unix-host-bound-in-workspace": "no supervision without the shim",
	}
	inittest.RunAttacks(t, inittest.MetaAttacks, confineShared(true), gaps)
}

func TestOrdinaryMeta(t *testing.T) {
	inittest.RunOrdinary(t, confineShared(false))
}
