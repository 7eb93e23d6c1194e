package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/modelpath"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
)

// Defaults of Options, the standard's own ports.
const (
	DefaultGRPC      = "127.0.0.1:9090"
	DefaultREST      = "127.0.0.1:8080"
	DefaultMaxOutput = 1 << 20 // bytes of each stream an ExecResult keeps
	// killWait is how long a stopped process's end (its exit event and
	// ringfence's outcome) is waited for before the stream is cut.
	killWait = 5 * time.Second
)

// Options say where the server is and how to reach it.
type Options struct {
	// GRPC is host:port of process.v1.ProcessService; "" is DefaultGRPC.
	GRPC string
	// REST is host:port of the REST API (files, health); "" is DefaultREST.
	REST string
	// Token, when set, is sent on every call as "authorization: Bearer
	// TOKEN" (ringfence serve --token-file). It is refused over plaintext
	// to a host that is not loopback: use TLS there.
	Token string
	// TLS, when set, is used on both ports; nil is plaintext.
	TLS *tls.Config
	// Isolation is what the caller trusts the deployment to hold (the
	// server's policy, which the client cannot read). Isolation() reports
	// it, and every result is checked against ringfence serve's outcome:
	// one that shows an isolation not held, or no outcome at all (a server
	// that is not ringfence), fails with ErrClaimNotHeld. Zero claims
	// nothing and checks nothing: what the reference daemon supports.
	Isolation ringfence.Isolation
	// Timeout is the default ExecOptions.Timeout; zero is none.
	Timeout time.Duration
	// MaxOutput bounds the bytes of each stream a result keeps; zero is
	// DefaultMaxOutput.
	MaxOutput int64
}

// Sandbox is a ringfence.Sandbox on a remote agent-sandbox runtime:
// commands over gRPC process.v1, files over the REST API.
type Sandbox struct {
	o      Options
	conn   *grpc.ClientConn
	pc     pb.ProcessServiceClient
	hc     *http.Client
	base   url.URL // scheme and host of the REST API
	closed atomic.Bool
	once   sync.Once

	mu    sync.Mutex
	procs map[*Process]struct{} // started through Exec or a Session, not yet ended
}

var _ ringfence.Sandbox = (*Sandbox)(nil)

// New makes a client. It dials lazily: an unreachable server is reported
// by the first call (ErrUnreachable), or by Health.
func New(o Options) (*Sandbox, error) {
	if o.GRPC == "" {
		o.GRPC = DefaultGRPC
	}
	if o.REST == "" {
		o.REST = DefaultREST
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	for _, a := range []string{o.GRPC, o.REST} {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			return nil, fmt.Errorf("remote: address %q: want host:port: %w", a, err)
		}
		if o.Token != "" && o.TLS == nil && !loopbackHost(host) {
			return nil, fmt.Errorf("remote: a token would cross the network in plaintext to %s: set Options.TLS", a)
		}
	}
	tc := insecure.NewCredentials()
	scheme := "http"
	if o.TLS != nil {
		tc = credentials.NewTLS(o.TLS.Clone())
		scheme = "https"
	}
	dial := []grpc.DialOption{grpc.WithTransportCredentials(tc)}
	if o.Token != "" {
		dial = append(dial, grpc.WithPerRPCCredentials(bearer{token: o.Token, secure: o.TLS != nil}))
	}
	conn, err := grpc.NewClient(o.GRPC, dial...)
	if err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	tr := &http.Transport{TLSClientConfig: o.TLS, MaxIdleConnsPerHost: 16, IdleConnTimeout: 30 * time.Second,
		ForceAttemptHTTP2: o.TLS != nil}
	if o.TLS != nil {
		tr.TLSClientConfig = o.TLS.Clone()
	}
	// Redirects are not followed: the API has none, and one would carry
	// the request (and its token) where the caller did not send it.
	hc := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &Sandbox{o: o, conn: conn, pc: pb.NewProcessServiceClient(conn), hc: hc,
		base: url.URL{Scheme: scheme, Host: o.REST}, procs: map[*Process]struct{}{}}, nil
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// bearer is the token as gRPC per-call credentials.
type bearer struct {
	token  string
	secure bool
}

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + b.token}, nil
}

// RequireTransportSecurity is false only for plaintext, which New allows
// with a token to loopback alone.
func (b bearer) RequireTransportSecurity() bool { return b.secure }

// Isolation is Options.Isolation: what the caller trusts the server to
// hold, checked against every outcome it sends.
func (s *Sandbox) Isolation() ringfence.Isolation { return s.o.Isolation }

// Close stops every process this client started that still runs (SIGKILL
// to its group, through the server) and closes the connections. The
// server and its other clients' processes go on. Safe twice.
func (s *Sandbox) Close() error {
	s.once.Do(func() {
		s.closed.Store(true)
		s.mu.Lock()
		procs := make([]*Process, 0, len(s.procs))
		for p := range s.procs {
			procs = append(procs, p)
		}
		s.mu.Unlock()
		var wg sync.WaitGroup
		for _, p := range procs {
			wg.Add(1)
			go func() { defer wg.Done(); p.kill() }()
		}
		wg.Wait()
		_ = s.conn.Close()
		s.hc.CloseIdleConnections()
	})
	return nil
}

// Health asks GET /v1/health: nil while the server serves,
// ErrShuttingDown while it drains, ErrUnreachable when it cannot be
// reached. It needs no credentials (the kubelet's probe has none).
func (s *Sandbox) Health(ctx context.Context) error {
	resp, err := s.do(ctx, "health", "", http.MethodGet, "/v1/health", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		return httpFailure("health", "", resp.StatusCode, "", body)
	}
	return nil
}

// do sends one REST request; a transport failure is ErrUnreachable.
func (s *Sandbox) do(ctx context.Context, op, path, method, p string, body io.Reader) (*http.Response, error) {
	if s.closed.Load() {
		return nil, &Error{Op: op, Path: path, Err: ErrClosed}
	}
	u := s.base
	u.Path = p
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, &Error{Op: op, Path: path, Message: err.Error(), Err: ErrInvalid}
	}
	if s.o.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.o.Token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Op: op, Path: path, Message: err.Error(), Err: ctx.Err()}
		}
		return nil, &Error{Op: op, Path: path, Message: err.Error(), Err: ErrUnreachable}
	}
	return resp, nil
}

// filePath is the REST path of a model path, read by internal/modelpath
// before anything is sent, as a local Sandbox reads it (the mount path
// stripped, the same refusals with the same outcome).
func filePath(path string) (string, error) {
	clean, err := modelpath.Mount("").Clean(path)
	if err != nil {
		return "", err
	}
	return "/v1/files/" + clean, nil
}

// ReadFile reads a file by model path, refusing one larger than maxBytes
// (never cutting it): a declared length over the bound is refused before
// the body is read, and a body that runs past it is refused too.
func (s *Sandbox) ReadFile(ctx context.Context, path string, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		return nil, &Error{Op: "read", Path: path, Message: "maxBytes must be positive", Err: ErrInvalid}
	}
	p, err := filePath(path)
	if err != nil {
		return nil, err
	}
	resp, err := s.do(ctx, "read", path, http.MethodGet, p, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, httpFailure("read", path, resp.StatusCode, resp.Header.Get(wire.OutcomeHeader), body)
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		// A directory's listing, not a file's bytes.
		return nil, &Error{Op: "read", Path: path, Message: "is a directory", Err: ErrInvalid}
	}
	if resp.ContentLength > maxBytes {
		return nil, &Error{Op: "read", Path: path, Message: fmt.Sprintf("%d bytes, over the bound of %d", resp.ContentLength, maxBytes), Err: ErrTooLarge}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, &Error{Op: "read", Path: path, Message: err.Error(), Err: ErrUnreachable}
	}
	if int64(len(data)) > maxBytes {
		return nil, &Error{Op: "read", Path: path, Message: fmt.Sprintf("over the bound of %d bytes", maxBytes), Err: ErrTooLarge}
	}
	return data, nil
}

// WriteFile writes a file by model path; the server writes it atomically.
func (s *Sandbox) WriteFile(ctx context.Context, path string, data []byte) error {
	p, err := filePath(path)
	if err != nil {
		return err
	}
	resp, err := s.do(ctx, "write", path, http.MethodPut, p, bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return httpFailure("write", path, resp.StatusCode, resp.Header.Get(wire.OutcomeHeader), body)
	}
	return nil
}

// track records a process this client started, until it ends.
func (s *Sandbox) track(p *Process) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	s.procs[p] = struct{}{}
	return nil
}

func (s *Sandbox) untrack(p *Process) {
	s.mu.Lock()
	delete(s.procs, p)
	s.mu.Unlock()
}

// errNoArgv: Exec and Start need a program.
var errNoArgv = errors.New("remote: argv needs a program")
