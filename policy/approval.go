package policy

import (
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

// Scope is how long a minted approval stays usable.
type Scope int

// The scopes. The zero value is the narrower one, so a grant that forgets
// its scope is spent on first use.
const (
	SingleCall Scope = iota // spent by the first successful Resolve
	Session                 // usable until it expires, by its session only
)

var scopeNames = []string{"single-call", "session"}

func (s Scope) String() string { return name(scopeNames, "scope", int(s)) }

// MarshalText writes the scope's stable name.
func (s Scope) MarshalText() ([]byte, error) { return marshalName(scopeNames, "scope", int(s)) }

// UnmarshalText reads "single-call" or "session".
func (s *Scope) UnmarshalText(b []byte) error {
	i, err := parseName(scopeNames, "scope", string(b))
	*s = Scope(i)
	return err
}

// Grant is what a person approved: the data an Approval is minted from.
// A Grant is plain data and proves nothing; only Approve turns it into a
// capability Resolve accepts.
type Grant struct {
	Scope     Scope
	ExpiresAt time.Time // zero: no expiry
	Mode      *Mode     // the mode this call may be raised to
	Entries   []Entry   // entries added with origin FromApproval, widening ones included
	Network   *Network  // the network this call may be raised to
	// SessionID, if set, binds the approval to one session: Resolve refuses
	// it for a request from any other session.
	SessionID string
	// Justification is carried for the audit trail and never interpreted.
	Justification string
}

// Approval is a minted grant: a capability, not data. Its state is
// unexported, so no decoded payload (JSON, TOML, a tool argument) can be
// one — a zero or decoded Approval is refused by Resolve. Copies of an
// *Approval share one spent flag, and it is safe for concurrent use.
type Approval struct {
	minted *minted
}

type minted struct {
	grant Grant
	spent atomic.Bool
}

// Approve mints an approval from a grant. Call it only where a person (or a
// deployment rule standing in for one) has actually said yes: it is the
// single place where a request for more becomes permission for more.
func Approve(g Grant) *Approval {
	return &Approval{minted: &minted{grant: cloneGrant(g)}}
}

// Grant returns a copy of what was approved, for audit and display.
func (a *Approval) Grant() Grant {
	if a == nil || a.minted == nil {
		return Grant{}
	}
	return cloneGrant(a.minted.grant)
}

// Spent reports whether a single-call approval has been used.
func (a *Approval) Spent() bool { return a != nil && a.minted != nil && a.minted.spent.Load() }

// String summarises the approval for logs: scope and what it widens.
func (a *Approval) String() string {
	if a == nil || a.minted == nil {
		return "approval(invalid)"
	}
	g := a.minted.grant
	s := "approval(" + g.Scope.String()
	if g.Mode != nil {
		s += " mode=" + g.Mode.String()
	}
	if len(g.Entries) > 0 {
		s += " entries=" + strconv.Itoa(len(g.Entries))
	}
	if g.Network != nil {
		s += " network=" + g.Network.Mode.String()
	}
	return s + ")"
}

// usable returns the grant if the approval may be used now by session, or
// the reason it may not. It does not spend it: spend does, once the whole
// resolution has succeeded.
func (a *Approval) usable(now time.Time, session string) (*Grant, error) {
	if a == nil {
		return nil, nil
	}
	m := a.minted
	switch {
	case m == nil:
		return nil, &ApprovalError{Reason: ApprovalNotMinted}
	case !m.grant.ExpiresAt.IsZero() && !now.Before(m.grant.ExpiresAt):
		return nil, &ApprovalError{Reason: ApprovalExpired}
	case m.grant.SessionID != "" && m.grant.SessionID != session:
		return nil, &ApprovalError{Reason: ApprovalOtherSession}
	case m.grant.Scope == SingleCall && m.spent.Load():
		return nil, &ApprovalError{Reason: ApprovalUsed}
	case !m.grant.Scope.validScope():
		return nil, &InvalidError{Field: "approval scope", Value: m.grant.Scope.String()}
	}
	return &m.grant, nil
}

// spend marks a single-call approval used. Exactly one of any number of
// concurrent resolutions wins; the others get ApprovalUsed.
func (a *Approval) spend() error {
	if a == nil || a.minted.grant.Scope != SingleCall {
		return nil
	}
	if !a.minted.spent.CompareAndSwap(false, true) {
		return &ApprovalError{Reason: ApprovalUsed}
	}
	return nil
}

func (s Scope) validScope() bool { return s == SingleCall || s == Session }

// cloneGrant deep-copies g so the caller cannot change a minted approval
// through a slice or pointer it kept.
func cloneGrant(g Grant) Grant {
	if g.Mode != nil {
		m := *g.Mode
		g.Mode = &m
	}
	if g.Network != nil {
		n := g.Network.clone()
		g.Network = &n
	}
	g.Entries = slices.Clone(g.Entries)
	return g
}
