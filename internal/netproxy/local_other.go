//go:build !linux

package netproxy

import "time"

// Local is unavailable off Linux (the landlock backend is Linux-only).
type Local struct{}

// ListenLocal is unavailable off Linux.
func ListenLocal() (*Local, error) { return nil, errNotLinux }

// Ports returns nothing.
func (l *Local) Ports() (httpPort, socksPort uint16) { return 0, 0 }

// Start is unavailable off Linux.
func (l *Local) Start(p *Proxy) error { return errNotLinux }

// Stop returns nothing.
func (l *Local) Stop(grace time.Duration) ([]Event, int) { return nil, 0 }

// Close does nothing.
func (l *Local) Close() {}
