package conformance

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/policy"
)

// LocalConfig is the configuration Local gives ringfence.Local: a fresh
// workspace under the zero Defaults, which is the agent profile ringfence
// is for (policy.AgentProfile: workspace-write over a readable host, the
// user's credentials denied, network denied).
func LocalConfig(root, backend string) ringfence.Config {
	return ringfence.Config{Root: root, Backend: backend, Timeout: 30 * time.Second}
}

// Local returns a create function for the suite: each call makes a
// ringfence.Local on backend ("auto", "linux", "landlock", "bwrap") over a
// fresh temp workspace, removed on Close. The binary must dispatch
// ringfence.MaybeInternal first thing (a confining Local re-executes it).
func Local(backend string) func() (ringfence.Sandbox, error) {
	return func() (ringfence.Sandbox, error) {
		sb, err := newLocal(backend)
		if err != nil {
			return nil, err
		}
		return sb, nil
	}
}

// LocalAvailable says whether backend can confine on this host, and if
// not, why (an error wrapping policy.ErrUnavailable when that is the
// reason).
func LocalAvailable(backend string) error {
	sb, err := newLocal(backend)
	if err != nil {
		return err
	}
	defer sb.Close()
	if sb.Backend() == "" {
		return fmt.Errorf("backend %s: no backend works here: %w", backend, policy.ErrUnavailable)
	}
	return nil
}

// tempLocal is a Local that owns its workspace directory.
type tempLocal struct {
	*ringfence.Local
	root string
}

func newLocal(backend string) (*tempLocal, error) {
	root, err := os.MkdirTemp("", "conformance-ws-")
	if err != nil {
		return nil, err
	}
	l, err := ringfence.New(LocalConfig(root, backend))
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	return &tempLocal{Local: l, root: root}, nil
}

// Close closes the Local, then removes its workspace. Safe twice.
func (t *tempLocal) Close() error {
	err := t.Local.Close()
	return errors.Join(err, os.RemoveAll(t.root))
}
