package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"sync"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Definition is one tool as an agent sees it.
type Definition struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Hints       Hints           `json:"hints"`
	// Data is the Go type of Result.Data when the call succeeds (a
	// pointer to a struct); a failed call may have none.
	Data reflect.Type `json:"-"`
}

// The defaults of Options.
const (
	DefaultGateTimeout    = 60 * time.Second
	DefaultMaxReadBytes   = 256 << 10
	DefaultMaxMediaBytes  = 10 << 20
	DefaultTimeout        = 120 * time.Second
	DefaultMaxTimeout     = 600 * time.Second
	DefaultMaxArgBytes    = 1 << 20
	DefaultMaxOutputBytes = 32 << 10
)

// Options configures a Set. Zero fields take the defaults above.
type Options struct {
	// Classifier reads run_command's command lines; nil is
	// execpolicy.Default().
	Classifier *execpolicy.Classifier
	// Gate asks a person; nil means nobody can be asked (see doc.go).
	Gate Gate
	// GateTimeout bounds one question to the Gate.
	GateTimeout time.Duration
	// MaxReadBytes is the largest read_file maxBytes (and its default).
	MaxReadBytes int64
	// MaxMediaBytes is the largest file read_media returns.
	MaxMediaBytes int64
	// DefaultTimeout is run_command's timeout when the call gives none;
	// MaxTimeout is the most a call may ask for.
	DefaultTimeout, MaxTimeout time.Duration
	// MaxArgBytes bounds one call's JSON arguments.
	MaxArgBytes int
	// MaxOutputBytes bounds each of stdout and stderr in the model-facing
	// text of run_command (the structured result keeps the runner's copy).
	MaxOutputBytes int
	// SessionID binds session approvals and the policy requests of this
	// Set to one session (one Set per session).
	SessionID string
	// Processes runs run_command in a long-lived session of this Set
	// (background, yield_ms, tty) and adds write_stdin, list_processes and
	// kill_process (run_command_session.go, processes.go); call Set.Close
	// when the session ends.
	Processes bool
}

func (o Options) withDefaults() Options {
	if o.Classifier == nil {
		o.Classifier = execpolicy.Default()
	}
	o.GateTimeout = orDur(o.GateTimeout, DefaultGateTimeout)
	o.DefaultTimeout = orDur(o.DefaultTimeout, DefaultTimeout)
	o.MaxTimeout = orDur(o.MaxTimeout, DefaultMaxTimeout)
	o.DefaultTimeout = min(o.DefaultTimeout, o.MaxTimeout)
	if o.MaxReadBytes <= 0 {
		o.MaxReadBytes = DefaultMaxReadBytes
	}
	if o.MaxMediaBytes <= 0 {
		o.MaxMediaBytes = DefaultMaxMediaBytes
	}
	if o.MaxArgBytes <= 0 {
		o.MaxArgBytes = DefaultMaxArgBytes
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	return o
}

func orDur(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Media is what read_media returns besides the text: the bytes to show.
type Media struct {
	MIME string `json:"mime"`
	Data []byte `json:"data"`
}

// AuditInfo is what an audit trail records of one call, beside the
// outcome. It never holds file contents; Summary (the person-facing gate
// text) is kept out of it because it may hold the command line.
type AuditInfo struct {
	Tool        string                     `json:"tool"`
	Permissions []string                   `json:"permissions,omitempty"`
	Programs    []string                   `json:"programs,omitempty"`
	Capability  string                     `json:"capability,omitempty"`
	Classified  string                     `json:"classified,omitempty"` // allow | allow-scoped | ask-approval | deny
	Class       *execpolicy.Classification `json:"classification,omitempty"`
	// Gate is what the approval step did: "" (not needed), "session" (a
	// session approval covered it), "approved-once", "approved-session",
	// "declined", "timeout", "error", "no-gate", "no-approver".
	Gate        string                 `json:"gate,omitempty"`
	Approval    string                 `json:"approval,omitempty"` // the minted approval, summarised
	Backend     string                 `json:"backend,omitempty"`
	Enforcement *ringfence.Enforcement `json:"enforcement,omitempty"`
	Duration    time.Duration          `json:"duration"`
	Violations  []outcome.Violation    `json:"violations,omitempty"`
	// Network is every decision of the domains network's proxy.
	Network []ringfence.NetworkDecision `json:"network,omitempty"`
	Outcome outcome.Kind                `json:"outcome"`
}

// Result is one call's answer.
type Result struct {
	// Text is what the model reads: the content, then the narration when
	// the outcome is not OK. It never holds the host root.
	Text    string          `json:"text"`
	Outcome outcome.Outcome `json:"outcome"`
	// Data is the structured result (run_command: *ringfence.ExecResult
	// with its output rewritten to model paths; file tools: a struct of
	// model paths and contents).
	Data any `json:"data,omitempty"`
	// IsError is true unless the call did what was asked: ok, a
	// scope-limited (partial) answer, or a search that found nothing.
	IsError bool      `json:"isError"`
	Media   *Media    `json:"media,omitempty"`
	Audit   AuditInfo `json:"audit"`

	// narration is the call's own narration of Outcome, made once by the
	// facade from the policy the run had (approval included): a run's
	// result carries it (execResult) and finish shows it as it is. ""
	// means the tool made the outcome itself and finish narrates it.
	narration string
}

// Set is the tools of one session over one sandbox. It is safe for
// concurrent use; it keeps the session's approvals.
type Set struct {
	sb    *ringfence.Local
	opts  Options
	nc    outcome.Context
	shell []string // the shell a command line runs in: bash -c or sh -c
	tools map[string]tool
	defs  []Definition

	mu       sync.Mutex
	approved map[string]*policy.Approval // session approvals by key (gate.go)
	// onApproval, for tests, sees every approval minted.
	onApproval func(*policy.Approval)
	// netAnswers are the person's answers about unlisted hosts (network_ask.go),
	// netAsk puts those questions one at a time.
	netAnswers map[string]bool
	netAsk     sync.Mutex
	procs      processState // the session of the process tools (processes.go)
}

// New returns the tools over sb.
func New(sb *ringfence.Local, o Options) *Set {
	s := &Set{sb: sb, opts: o.withDefaults(), tools: map[string]tool{}, approved: map[string]*policy.Approval{}}
	s.nc = outcome.Context{MountPath: sb.MountPath()}
	if pol, err := sb.Policy(policy.Request{SessionID: s.opts.SessionID}); err == nil {
		s.nc = sb.NarrationContext(pol)
	}
	s.shell = shellArgv()
	for _, mk := range registry {
		t := mk(s)
		if t == nil { // not enabled by Options (the process tools)
			continue
		}
		s.tools[t.name()] = t
		s.defs = append(s.defs, t.definition())
	}
	sort.Slice(s.defs, func(i, j int) bool { return s.defs[i].Name < s.defs[j].Name })
	return s
}

// Definitions are the tools, sorted by name.
func (s *Set) Definitions() []Definition { return append([]Definition(nil), s.defs...) }

// Permissions is what one call with these arguments declares: shell:<prog>
// per program a command runs, network:* for a network command,
// filesystem:read|write <model path> for a file tool. A call whose
// arguments are refused declares nothing and the error carries the
// outcome (read it with outcome.Of).
func (s *Set) Permissions(name string, args json.RawMessage) ([]string, error) {
	t, ok := s.tools[name]
	if !ok {
		return nil, fail(invalid("unknown tool"))
	}
	a, err := t.decode(args)
	if err != nil {
		return nil, err
	}
	return t.permissions(a)
}

// Call runs one tool call. It never panics on any input and always
// returns a result with an outcome kind.
func (s *Set) Call(ctx context.Context, name string, args json.RawMessage) Result {
	start := time.Now()
	ctx, notes := withNotes(ctx)
	r := s.call(ctx, name, args)
	r.Audit.Tool = name
	r.Audit.Duration = time.Since(start)
	if n := notes.joined(); n != "" && r.Outcome.Kind != outcome.GateDeclined {
		r.Outcome.Note = n
	}
	s.finish(&r)
	return r
}

func (s *Set) call(ctx context.Context, name string, args json.RawMessage) Result {
	t, ok := s.tools[name]
	if !ok {
		return s.failed(invalid("unknown tool"))
	}
	a, err := t.decode(args)
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	perms, err := t.permissions(a)
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	r := t.call(ctx, a)
	r.Audit.Permissions = perms
	return r
}

// finish makes every result well formed: a kind, scrubbed fields, the
// narration after the content, IsError from the kind.
func (s *Set) finish(r *Result) {
	if r.Outcome.Kind == "" {
		r.Outcome = outcome.Outcome{Kind: outcome.IOFailure, Detail: "the tool returned no outcome"}
		r.narration = ""
	}
	r.Outcome = s.nc.Scrub(r.Outcome)
	r.Audit.Outcome = r.Outcome.Kind
	switch r.Outcome.Kind {
	case outcome.OK, outcome.ScopeLimited, outcome.NoMatches:
	default:
		r.IsError = true
	}
	// The content is scrubbed of the host root; so is the narration
	// (outcome.Narrate does it), except a path-rejected path, which is the
	// model's own string shown as given (see rejectedPath).
	r.Text = s.scrub(r.Text)
	if r.Outcome.Kind != outcome.OK {
		n := r.narration
		if n == "" {
			n = s.narrate(r.Outcome)
		}
		r.Text = outcome.JoinText(r.Text, n)
	}
	if r.Outcome.Note != "" && r.Outcome.Kind != outcome.GateDeclined {
		r.Text = outcome.JoinText(r.Text, s.scrub(noteText(r.Outcome.Note)))
	}
}

func (s *Set) failed(o outcome.Outcome) Result { return Result{Outcome: o} }
