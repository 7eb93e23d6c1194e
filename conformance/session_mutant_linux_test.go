//go:build linux

package conformance_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/conformance"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// sharedSessions is the linux Local with one fault: every Session call
// hands out the same session, so two "sessions" are one environment.
type sharedSessions struct {
	ringfence.Sandbox
	mu  sync.Mutex
	ses *ringfence.Session
}

func (m *sharedSessions) Session(ctx context.Context, req policy.Request, o ...ringfence.SessionOptions) (*ringfence.Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ses == nil {
		var err error
		if m.ses, err = m.Sandbox.(conformance.Sessioner).Session(ctx, req, o...); err != nil {
			return nil, err
		}
	}
	return m.ses, nil
}

// The sessions checks run for real on the linux backend (never "not
// claimed"), and sessions/isolated catches two sessions that are one.
func TestSessionChecks(t *testing.T) {
	testenv.Need(t, "backend linux", conformance.LocalAvailable("linux"))
	rep := conformance.Run(context.Background(), conformance.Local("linux"), conformance.Options{Name: "linux"})
	shared := conformance.Run(context.Background(), func() (ringfence.Sandbox, error) {
		sb, err := conformance.Local("linux")()
		return &sharedSessions{Sandbox: sb}, err
	}, conformance.Options{Name: "shared"})
	find := func(r conformance.Report, name string) conformance.Check {
		for _, c := range r.Checks {
			if c.Name == name {
				return c
			}
		}
		t.Fatalf("no check %s", name)
		return conformance.Check{}
	}
	for _, n := range []string{"sessions/background-survives", "sessions/isolated", "sessions/teardown"} {
		if c := find(rep, n); !c.OK || c.Detail != "" {
			t.Errorf("%s on linux: ok %v, %s", n, c.OK, c.Detail)
		}
	}
	if c := find(shared, "sessions/isolated"); c.OK || c.Skipped || !strings.Contains(c.Detail, "session B") {
		t.Errorf("shared sessions passed sessions/isolated: %+v", c)
	}
	if c := find(shared, "sessions/background-survives"); !c.OK {
		t.Errorf("the fault is only isolation: %+v", c)
	}
}
