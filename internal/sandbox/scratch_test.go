package sandbox

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// TestScratchFate pins Enforcement.Scratch for every backend's declared
// traits and mode (the values the backend-name comparison gave before).
func TestScratchFate(t *testing.T) {
	linux := confine.Traits{Namespaces: true, Sessions: confine.SessionsInit, Scratch: confine.ScratchPrivate}
	bwrap := confine.Traits{Namespaces: true, Scratch: confine.ScratchPrivateWritable}
	landlock := confine.Traits{Sessions: confine.SessionsRuns}
	tests := []struct {
		t    confine.Traits
		mode policy.Mode
		want string
	}{
		{linux, policy.WorkspaceWrite, "discarded"},
		{linux, policy.ReadOnly, "read-only"},
		{bwrap, policy.WorkspaceWrite, "discarded"},
		{bwrap, policy.ReadOnly, "discarded"},
		{landlock, policy.WorkspaceWrite, "host"},
		{landlock, policy.ReadOnly, "host"},
		{confine.Traits{}, policy.WorkspaceWrite, "host"}, // nothing declared: the weakest claim
		{confine.Traits{Scratch: "bogus"}, policy.WorkspaceWrite, "host"},
	}
	for _, tt := range tests {
		if got := scratchFate(tt.t, tt.mode); got != tt.want {
			t.Errorf("scratchFate(%+v, %v) = %q, want %q", tt.t, tt.mode, got, tt.want)
		}
	}
}
