//go:build !linux

package sandbox

import (
	"context"
	"syscall"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// sessionSys: sessions need the linux backend's init.
type sessionSys struct{ runDone chan struct{} }

func (sessionSys) resultCmd() *confine.Cmd { return &confine.Cmd{} }

func (sessionSys) breach() outcome.Breach { return outcome.BreachNone }

// Session is not available off Linux.
func (l *Local) Session(context.Context, policy.Request, ...SessionOptions) (*Session, error) {
	return nil, ErrSessionUnsupported
}

// Start is never reached off Linux (no Session is ever made).
func (s *Session) Start(context.Context, Cmd) (*Process, error) { return nil, ErrSessionUnsupported }

// Close is never reached off Linux.
func (s *Session) Close() error { return nil }

func (s *Session) signal(uint64, syscall.Signal) error { return ErrSessionUnsupported }

func (s *Session) resize(uint64, WindowSize) error { return ErrSessionUnsupported }
