//go:build !linux

package netproxy

import (
	"errors"
	"os"
	"time"

	"github.com/ringfence/ringfence/internal/netproxy/netrule"
)

// Session is unavailable off Linux: the domains network needs a network
// namespace.
type Session struct{}

var errNotLinux = errors.New("the domains network needs Linux")

// Serve is unavailable off Linux.
func Serve(p *Proxy, f *os.File) (*Session, error) { return nil, errNotLinux }

// Stop returns nothing.
func (s *Session) Stop(grace time.Duration) ([]Event, int) { return nil, 0 }

// Send is unavailable off Linux (netrule.Send).
func Send(sock *os.File, h Handoff, fd int) error { return netrule.Send(sock, h, fd) }
