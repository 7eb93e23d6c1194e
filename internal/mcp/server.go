package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/tools"
)

// Config configures a Server.
type Config struct {
	// Sandbox is shared by every session; each session gets its own
	// tools.Set over it, so approvals never cross sessions.
	Sandbox *sandbox.Local
	// Tools are the options of every session's Set; Gate and SessionID are
	// set by the server per session and ignored here.
	Tools tools.Options
	// Audit, when set, receives one record per tool call.
	Audit *audit.Writer
	// Name and Version are what the server reports to clients.
	Name, Version string
	// Logger, when set, logs the SDK's activity (never to stdout).
	Logger *slog.Logger
}

// protocolVersions are the versions served: those where a session is a
// connection and the server may ask the person mid-call (elicitation).
// 2026-07-28 (stateless, multi round-trip) is not served yet; clients that
// speak it fall back to the 2025-11-25 handshake.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Server is the MCP adapter: the tools of package tools over MCP.
type Server struct {
	cfg    Config
	mcp    *sdk.Server
	maxArg int

	mu       sync.Mutex
	sessions map[*sdk.ServerSession]*session
	// live maps the nonce of each HTTP request in flight to its context
	// (see http.go), so a call ends when its request's connection does.
	live sync.Map
}

type session struct {
	// id is the server's own name for the session (approvals are bound to
	// it; the trail records its label). It is random and never the
	// transport's session id, which over HTTP travels in a header and acts
	// in the session: nothing the tool layer or the trail holds can be
	// replayed as one.
	id string
	// transportID is the MCP session id ("" on stdio), for DELETE.
	transportID string
	set         *tools.Set
	policy      string
	// owner is the HTTP credential that opened the session ("" on stdio):
	// every later call must carry it.
	owner string

	mu    sync.Mutex
	calls map[*int]context.CancelFunc // calls in flight, ended with the session
}

// NewServer builds the server and registers every tool.
func NewServer(cfg Config) *Server {
	if cfg.Name == "" {
		cfg.Name = "ringfence"
	}
	s := &Server{cfg: cfg, sessions: map[*sdk.ServerSession]*session{}}
	s.maxArg = cfg.Tools.MaxArgBytes
	if s.maxArg <= 0 {
		s.maxArg = tools.DefaultMaxArgBytes
	}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: cfg.Name, Version: cfg.Version}, &sdk.ServerOptions{
		Logger:                    cfg.Logger,
		Instructions:              instructions(cfg.Sandbox),
		Capabilities:              &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{}},
		SupportedProtocolVersions: protocolVersions,
		InitializedHandler:        func(context.Context, *sdk.InitializedRequest) { s.prune() },
	})
	for _, d := range definitions(cfg) {
		s.mcp.AddTool(d, s.handle)
	}
	return s
}

// MCP is the SDK server, for transports this package does not wrap. A
// call that arrives over HTTP (it carries request headers) without the
// token info HTTPHandler adds has no approval gate: serving it some other
// way never makes its client an approver.
func (s *Server) MCP() *sdk.Server { return s.mcp }

func (s *Server) handle(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	sess := s.session(req.Session, req.Extra)
	if owner, _, _ := credentialOf(req.Extra); owner != sess.owner {
		// The SDK binds an HTTP session to its opener's credential too;
		// this keeps the rule if it ever stops doing so.
		return nil, errSessionOwner
	}
	ctx, done := s.callContext(ctx, sess, req.Extra)
	defer done()
	name, args := req.Params.Name, req.Params.Arguments
	start := time.Now()
	res := sess.set.Call(ctx, name, args)
	if s.cfg.Audit != nil {
		rec := audit.FromCall(audit.Call{At: start, Session: sess.id, Tool: name, Args: args, Policy: sess.policy, Result: res})
		if err := s.cfg.Audit.Write(rec); err != nil && s.cfg.Logger != nil {
			s.cfg.Logger.Error("audit write failed", "err", err)
		}
	}
	return toMCP(res), nil
}

// errSessionOwner refuses a call carrying another credential than the one
// that opened its session.
var errSessionOwner = errors.New("mcp: this session belongs to another credential")

// session returns the state of ss, making it on its first call: its own
// tools.Set, whose gate asks this session's person — if the session may
// approve at all (see credentialOf).
func (s *Server) session(ss *sdk.ServerSession, extra *sdk.RequestExtra) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.sessions[ss]; ok {
		return st
	}
	id := newID()
	owner, approver, viaHTTP := credentialOf(extra)
	opts := s.cfg.Tools
	opts.SessionID = id
	opts.Gate = nil // nobody to ask: what needs approval is not run
	if !viaHTTP || approver {
		opts.Gate = &elicitGate{ss: ss}
	}
	st := &session{id: id, transportID: ss.ID(), owner: owner, set: tools.New(s.cfg.Sandbox, opts), calls: map[*int]context.CancelFunc{}}
	if pol, err := s.cfg.Sandbox.Policy(policy.Request{SessionID: id}); err == nil {
		st.policy = pol.Summary()
	}
	s.sessions[ss] = st
	go s.watch(ss)
	return st
}

// watch ends a session's state as soon as its connection closes (a stdio
// client that left, an HTTP session ended or timed out): its calls in
// flight are cancelled and its sandbox session — every background process
// — is closed then, not at the next prune.
func (s *Server) watch(ss *sdk.ServerSession) {
	_ = ss.Wait()
	s.mu.Lock()
	st, ok := s.sessions[ss]
	delete(s.sessions, ss)
	s.mu.Unlock()
	if !ok {
		return
	}
	st.mu.Lock()
	for _, cancel := range st.calls {
		cancel()
	}
	st.mu.Unlock()
	_ = st.set.Close()
}

// prune forgets sessions the SDK no longer holds (a closed connection, an
// HTTP session that ended), so their approvals and processes die with them.
func (s *Server) prune() {
	live := map[*sdk.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		live[ss] = true
	}
	s.mu.Lock()
	var ended []*session
	for ss, st := range s.sessions {
		if !live[ss] {
			ended = append(ended, st)
			delete(s.sessions, ss)
		}
	}
	s.mu.Unlock()
	for _, st := range ended {
		_ = st.set.Close() // its processes end with it (tools.Options.Processes)
	}
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// callContext is the context of one call: cancelled when the client
// cancels it or its connection closes (the SDK's), when the HTTP request
// that carries it ends, or when its session is ended (endSession).
func (s *Server) callContext(ctx context.Context, sess *session, extra *sdk.RequestExtra) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := func() bool { return false }
	if extra != nil && extra.Header != nil {
		if h, ok := s.live.Load(extra.Header.Get(nonceHeader)); ok {
			stop = context.AfterFunc(h.(context.Context), cancel)
		}
	}
	key := new(int)
	sess.mu.Lock()
	sess.calls[key] = cancel
	sess.mu.Unlock()
	return ctx, func() {
		stop()
		cancel()
		sess.mu.Lock()
		delete(sess.calls, key)
		sess.mu.Unlock()
	}
}

// endSession cancels every call in flight of the session with this id,
// if owner opened it.
func (s *Server) endSession(id, owner string) {
	s.mu.Lock()
	var ended []*session
	for _, st := range s.sessions {
		if st.transportID != "" && st.transportID == id && st.owner == owner {
			ended = append(ended, st)
		}
	}
	s.mu.Unlock()
	for _, st := range ended {
		st.mu.Lock()
		for _, cancel := range st.calls {
			cancel()
		}
		st.mu.Unlock()
	}
}
