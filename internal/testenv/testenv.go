// Package testenv holds the one rule for tests that need something of the
// host: skip with a reason, unless RINGFENCE_REQUIRE_ALL=1, under which a
// missing feature fails the test instead. CI sets it, so a green CI run
// means every confinement test really ran.
package testenv

import (
	"os"
	"testing"
)

// RequireAll reports whether missing host features must fail tests.
func RequireAll() bool { return os.Getenv("RINGFENCE_REQUIRE_ALL") == "1" }

// Need skips (or, under RINGFENCE_REQUIRE_ALL=1, fails) the test when err
// is non-nil: err says which host feature is missing and why.
func Need(t testing.TB, feature string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if RequireAll() {
		t.Fatalf("RINGFENCE_REQUIRE_ALL=1 and %s is unavailable: %v", feature, err)
	}
	t.Skipf("%s is unavailable: %v", feature, err)
}

// NeedRoot is Need for tests that must run as root.
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		Need(t, "root", errNotRoot)
	}
}

type notRoot struct{}

func (notRoot) Error() string { return "the test is not running as root" }

var errNotRoot error = notRoot{}
