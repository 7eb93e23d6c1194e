package shim_test

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/bwrap/shim"
)

// A malformed --proxy is a usage error (exit 125) before the shim does
// anything: no standard descriptor, no number that is not one, not the
// status descriptor itself.
func TestShimRefusesBadProxyFD(t *testing.T) {
	for _, args := range [][]string{
		{"5", "--proxy", "2", "--", "true"},
		{"5", "--proxy", "x", "--", "true"},
		{"5", "--proxy", "5", "--", "true"},
		{"5", "--proxy", "-1", "--", "true"},
		{"5", "--proxy"},
	} {
		if code := shim.Main(args); code != 125 {
			t.Errorf("Main(%q) = %d, want 125", args, code)
		}
	}
}
