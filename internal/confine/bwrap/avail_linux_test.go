package bwrap_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/policy"
)

// fakeBwrap writes a script that answers --version and fails every
// sandbox the way bwrap does on a host without user namespaces.
func fakeBwrap(t *testing.T) string {
	t.Helper()
	path := t.TempDir() + "/bwrap"
	script := `#!/bin/sh
if [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi
echo "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2
exit 1
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestAvailableSaysWhy(t *testing.T) {
	self, _ := os.Executable()
	tests := []struct {
		name string
		opts bwrap.Options
		want string
	}{
		{"not installed", bwrap.Options{Path: "/nonexistent/bwrap", Self: self}, "bwrap is not installed"},
		{"no user namespaces", bwrap.Options{Path: fakeBwrap(t), Self: self}, "bwrap cannot create a sandbox here: bwrap: No permissions to create new namespace"},
		{"no shim", bwrap.Options{Path: fakeBwrap(t), Self: "/nonexistent/ringfence"}, "exec shim binary is missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := bwrap.New(tt.opts)
			err := p.Available()
			var u *confine.UnavailableError
			if !errors.As(err, &u) || !errors.Is(err, policy.ErrUnavailable) || !strings.Contains(u.Reasons[0], tt.want) {
				t.Fatalf("Available() = %v, want an UnavailableError saying %q", err, tt.want)
			}
			pol := &policy.Policy{Mode: policy.ReadOnly, Root: "/"}
			if cmd, err := p.Confine(confine.Request{Argv: []string{"true"}, Policy: pol}); cmd != nil || err == nil {
				t.Errorf("unavailable backend confined: %v, %v", cmd, err)
			}
			// Named explicitly, it fails with the same typed error, and
			// auto with nothing else to try refuses too.
			if _, err := confine.Select(bwrap.Name, p); !errors.As(err, &u) {
				t.Errorf("Select(bwrap) = %v", err)
			}
			if _, err := confine.Auto(p).Confine(confine.Request{Argv: []string{"true"}, Policy: pol}); !errors.As(err, &u) {
				t.Errorf("Auto(bwrap).Confine = %v", err)
			}
		})
	}
}

func TestAvailableHere(t *testing.T) {
	p := provider(t)
	if p.Name() != "bwrap" || p.Version() == "" || !strings.HasPrefix(p.Path(), "/") {
		t.Errorf("name %q version %q path %q", p.Name(), p.Version(), p.Path())
	}
}
