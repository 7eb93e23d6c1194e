package netproxy

import (
	"net/netip"

	"github.com/ringfence/ringfence/internal/netproxy/netrule"
)

// The decision half of this package lives in netrule, which does not link
// net/http: the sandbox init (policy, the in-namespace listeners) needs
// rules, targets, the fake DNS table and the handoff encoding but never the
// proxy, and every package the init links is carried in every ringfence
// binary and copied into memory on every run (internal/confine/initimage).
// These names keep the host side's code unchanged; each is the same type,
// value or function, not a copy.

type (
	Rule      = netrule.Rule
	RuleKind  = netrule.RuleKind
	Rules     = netrule.Rules
	Target    = netrule.Target
	Decision  = netrule.Decision
	Verdict   = netrule.Verdict
	FakeTable = netrule.FakeTable
	Handoff   = netrule.Handoff
	Kind      = netrule.Kind
)

const (
	Exact      = netrule.Exact
	Subdomains = netrule.Subdomains
	Network    = netrule.Network
	Everything = netrule.Everything

	Deny  = netrule.Deny
	Allow = netrule.Allow
	Ask   = netrule.Ask

	ReasonAllowlist   = netrule.ReasonAllowlist
	ReasonDenylist    = netrule.ReasonDenylist
	ReasonPrivate     = netrule.ReasonPrivate
	ReasonSNIMismatch = netrule.ReasonSNIMismatch
	ReasonHostMatch   = netrule.ReasonHostMatch
	ReasonBadRequest  = netrule.ReasonBadRequest
	ReasonDeclined    = netrule.ReasonDeclined

	HTTPPort  = netrule.HTTPPort
	SOCKSPort = netrule.SOCKSPort
	DNSPort   = netrule.DNSPort

	KindHTTP     = netrule.KindHTTP
	KindSOCKS5   = netrule.KindSOCKS5
	KindCaptured = netrule.KindCaptured

	MaxFakeNames = netrule.MaxFakeNames
	MaxHandoff   = netrule.MaxHandoff
)

// The variables are the same values (the slice, map and prefix share their
// contents; the errors are the same sentinels, so errors.Is holds across
// both names).
var (
	CapturePorts = netrule.CapturePorts
	ErrAuthority = netrule.ErrAuthority
	ErrRule      = netrule.ErrRule
	FakeRange    = netrule.FakeRange
	Presets      = netrule.Presets
)

func ParseRule(s string, allowStar bool) (Rule, error) { return netrule.ParseRule(s, allowStar) }

func ParseRules(list []string, allowStar bool) ([]Rule, error) {
	return netrule.ParseRules(list, allowStar)
}

func ParseAuthority(s string) (Target, error)        { return netrule.ParseAuthority(s) }
func ParseHost(s string) (Target, error)             { return netrule.ParseHost(s) }
func DecodeHandoff(b []byte) (Handoff, error)        { return netrule.DecodeHandoff(b) }
func NewFakeTable() *FakeTable                       { return netrule.NewFakeTable() }
func AnswerDNS(q []byte, t *FakeTable) []byte        { return netrule.AnswerDNS(q, t) }
func Private(a netip.Addr) string                    { return netrule.Private(a) }
func ProxyEnv() []string                             { return netrule.ProxyEnv() }
func WithProxyEnv(env []string) []string             { return netrule.WithProxyEnv(env) }
func CapturedHost(a netip.Addr, t *FakeTable) string { return netrule.CapturedHost(a, t) }

func ProxyEnvAt(httpPort, socksPort uint16) []string {
	return netrule.ProxyEnvAt(httpPort, socksPort)
}

func WithProxyEnvAt(env []string, httpPort, socksPort uint16) []string {
	return netrule.WithProxyEnvAt(env, httpPort, socksPort)
}
