package sandbox

import (
	"context"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// The one set-up of the session tests (session_linux_test.go,
// session_oneshot_linux_test.go, session_teardown_linux_test.go): the
// defaults they run under and a session closed at the test's end.

// loopbackDefaults are the agent defaults with loopback networking.
func loopbackDefaults() policy.Defaults {
	d := policy.AgentDefaults()
	d.Network = policy.Network{Mode: policy.NetLoopback}
	return d
}

// openSession starts a session of l under the defaults, closed at the
// test's end. A host that cannot give one skips with the reason
// (testenv.Need: a failure under RINGFENCE_REQUIRE_ALL) unless required,
// when it fails the test.
func openSession(t *testing.T, l *Local, required bool, o ...SessionOptions) *Session {
	t.Helper()
	s, err := l.Session(context.Background(), policy.Request{}, o...)
	switch {
	case err != nil && required:
		t.Fatalf("a %s session: %v", l.Backend(), err)
	case err != nil:
		testenv.Need(t, "a "+l.Backend()+"-backend session", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
