//go:build !linux

package bwrap

import (
	"github.com/ringfence/ringfence/internal/confine"
)

func probe(Options) (hostInfo, error) {
	return hostInfo{}, &confine.UnavailableError{Tried: []string{Name}, Reasons: []string{"bwrap exists only on Linux"}}
}

// Stat is unused off Linux; it reports every path missing.
func Stat(string) (Kind, error) { return Missing, nil }

// List is unused off Linux.
func List(string) ([]Entry, error) { return nil, nil }

// Confine always fails off Linux: bwrap is Linux-only.
func (p *Provider) Confine(confine.Request) (*confine.Cmd, error) {
	return nil, p.Available()
}
