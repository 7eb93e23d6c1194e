package tools

import (
	"reflect"

	"github.com/ringfence/ringfence/policy"
)

// Hints are what a client may assume about a tool before calling it (MCP
// tool annotations): a client may auto-approve a read-only tool and warn
// before a destructive one. They are hints, never a check — the sandbox
// and the gate decide — but they must not understate: a hint that a tool
// is harmless when it is not would let a client skip its person.
type Hints struct {
	// ReadOnly: the tool changes nothing (no file, no process left behind).
	ReadOnly bool `json:"read_only"`
	// Destructive: the tool may overwrite or delete what exists
	// (meaningful when not ReadOnly).
	Destructive bool `json:"destructive"`
	// Idempotent: repeating a call with the same arguments has no further
	// effect (meaningful when not ReadOnly).
	Idempotent bool `json:"idempotent"`
	// OpenWorld: the tool may reach entities outside the workspace (the
	// network).
	OpenWorld bool `json:"open_world"`
}

// readOnly are the hints of a tool that only reads the workspace.
var readOnly = Hints{ReadOnly: true, Idempotent: true}

// writeHints: write_file replaces a file's content (destructive), and
// writing the same content twice leaves the same file (idempotent);
// edit_file replaces text, and a second identical edit finds a different
// file (or fails), so it is not idempotent.
var (
	writeHints = Hints{Destructive: true, Idempotent: true}
	editHints  = Hints{Destructive: true}
)

// commandHints are run_command's and run_code's: a command may delete
// anything it can write and is never idempotent. It reaches the open
// world when the session's network reaches past the sandbox (domains or
// allow-all), or when a person could approve a network command: an
// approved command runs with the network widened to allow-all (gate.go).
// Only deny or loopback with nobody to ask keeps it closed.
func (s *Set) commandHints() Hints {
	h := Hints{Destructive: true}
	pol, err := s.sb.Policy(policy.Request{SessionID: s.opts.SessionID})
	// A policy that cannot be resolved runs nothing; say open rather than
	// understate.
	h.OpenWorld = err != nil || pol.Network.Mode >= policy.NetDomains || s.opts.Gate != nil
	return h
}

// dataType is the Go type of a tool's Result.Data, published in its
// Definition so a transport can describe it (an output schema).
func dataType[T any]() reflect.Type { return reflect.TypeFor[*T]() }
