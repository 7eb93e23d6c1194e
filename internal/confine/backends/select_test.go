package backends

import (
	"errors"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// TestTraitsOf pins what each shipped backend declares: the facade's
// Isolation, sessions and /tmp fate follow from these, not from names.
func TestTraitsOf(t *testing.T) {
	tests := []struct {
		name string
		want confine.Traits
	}{
		{"linux", confine.Traits{Namespaces: true, Sessions: confine.SessionsInit, Scratch: confine.ScratchPrivate}},
		{"bwrap", confine.Traits{Namespaces: true, Sessions: confine.SessionsNone, Scratch: confine.ScratchPrivateWritable}},
		{"landlock", confine.Traits{Sessions: confine.SessionsRuns, Scratch: confine.ScratchHost}},
		{"auto", confine.Traits{}}, // a chain is not a backend: nothing is claimed by name
		{"none", confine.Traits{}},
		{"", confine.Traits{}},
		{"Linux", confine.Traits{}},
	}
	for _, tt := range tests {
		if got := TraitsOf(tt.name); got != tt.want {
			t.Errorf("TraitsOf(%q) = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if len(Names) != 3 {
		t.Fatalf("Names = %v; a new backend needs a row above", Names)
	}
}

// TestSelectUnknown: an unknown backend name is a policy error, never a
// fallback to some other backend.
func TestSelectUnknown(t *testing.T) {
	if p, err := Select("docker"); !errors.Is(err, policy.ErrPolicy) || p != nil {
		t.Fatalf("Select(docker) = %v, %v; want ErrPolicy", p, err)
	}
}
