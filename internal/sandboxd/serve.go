package sandboxd

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ringfence/ringfence/internal/sandboxd/process"
	"github.com/ringfence/ringfence/internal/sandboxd/reflection"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// RESTHandler is the REST API (files, health, metadata) mounted on the
// REST port: package files' Handler. SetShuttingDown flips its health to
// 503, the first step of a graceful shutdown.
type RESTHandler interface {
	http.Handler
	SetShuttingDown()
}

// Config is one server.
type Config struct {
	// GRPC and REST are the listeners (net.Listen by the caller, so it
	// decides the addresses and may pass port 0).
	GRPCListener, RESTListener net.Listener
	// Process is the ProcessService.
	Process *process.Server
	// REST serves the REST port; nil serves only /v1/health (Health).
	REST RESTHandler
	// Token, when set, is required on every gRPC call and every REST
	// request but /v1/health (the kubelet's probe carries none), as
	// "authorization: Bearer TOKEN".
	Token string
	// TLS, when set, serves both ports over TLS.
	TLS *tls.Config
	// ShutdownTimeout bounds the graceful shutdown: processes get SIGTERM
	// and this long before SIGKILL; in-flight calls end within it.
	ShutdownTimeout time.Duration
	// IdleTimeout closes idle HTTP keep-alive connections.
	IdleTimeout time.Duration
	// Log receives one line per lifecycle step; nil discards.
	Log io.Writer
}

// Serve serves until ctx ends, then shuts down gracefully: health flips to
// 503 (Kubernetes stops routing), new processes are refused, every
// process gets SIGTERM and, ShutdownTimeout later, SIGKILL with the
// session; then both servers stop (Start streams have ended with their
// processes). It returns the first serving error, or nil.
func Serve(ctx context.Context, c Config) error {
	if c.GRPCListener == nil || c.RESTListener == nil || c.Process == nil {
		return errors.New("sandboxd: both listeners and the process service are required")
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	var rest RESTHandler = c.REST
	if rest == nil {
		rest = &Health{}
	}
	var opts []grpc.ServerOption
	if c.TLS != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(c.TLS)))
	}
	if c.Token != "" {
		opts = append(opts, grpc.ChainUnaryInterceptor(unaryAuth(c.Token)), grpc.ChainStreamInterceptor(streamAuth(c.Token)))
	}
	gs := grpc.NewServer(opts...)
	pb.RegisterProcessServiceServer(gs, c.Process)
	reflection.Register(gs) // grpcurl works without the .proto
	var h http.Handler = rest
	if c.Token != "" {
		h = restAuth(c.Token, h)
	}
	restTLS := c.TLS
	if c.TLS != nil && c.TLS.ClientAuth == tls.RequireAndVerifyClientCert {
		// The kubelet's readiness probe presents no certificate: the REST
		// port asks for one, verifies any given, and requires it on every
		// request but /v1/health.
		restTLS = c.TLS.Clone()
		restTLS.ClientAuth = tls.VerifyClientCertIfGiven
		h = restClientCert(h)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: c.IdleTimeout, TLSConfig: restTLS}

	errc := make(chan error, 2)
	go func() {
		if err := gs.Serve(c.GRPCListener); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			errc <- fmt.Errorf("grpc: %w", err)
		}
	}()
	go func() {
		var err error
		if c.TLS != nil {
			err = hs.ServeTLS(c.RESTListener, "", "")
		} else {
			err = hs.Serve(c.RESTListener)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("rest: %w", err)
		}
	}()
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	fmt.Fprintln(c.Log, "ringfence serve: shutting down")
	rest.SetShuttingDown()
	sctx, cancel := context.WithTimeout(context.Background(), c.ShutdownTimeout+5*time.Second)
	defer cancel()
	c.Process.Shutdown(sctx, c.ShutdownTimeout)
	// Processes are gone, so Start streams have ended: stop the servers,
	// forcibly if a call still lingers past the bound.
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		stopped := make(chan struct{})
		go func() { gs.GracefulStop(); close(stopped) }()
		select {
		case <-stopped:
		case <-sctx.Done():
			gs.Stop()
		}
	}()
	go func() {
		defer wg.Done()
		if hs.Shutdown(sctx) != nil {
			_ = hs.Close()
		}
	}()
	wg.Wait()
	fmt.Fprintln(c.Log, "ringfence serve: stopped")
	return serveErr
}

// Health is the REST port's handler when no REST API is mounted: GET
// /v1/health only (200 {"status":"ok"}; 503 once shutting down).
type Health struct {
	mu   sync.Mutex
	down bool
}

// SetShuttingDown flips the health to 503.
func (h *Health) SetShuttingDown() {
	h.mu.Lock()
	h.down = true
	h.mu.Unlock()
}

func (h *Health) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/health" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h.mu.Lock()
	down := h.down
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if down {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"status":"shutting_down"}`+"\n")
		return
	}
	_, _ = io.WriteString(w, `{"status":"ok"}`+"\n")
}

// bearer reports whether v is "Bearer TOKEN" for the token, in constant
// time over the token.
func bearer(v, token string) bool {
	got, ok := strings.CutPrefix(v, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

func authorized(ctx context.Context, token string) error {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		if bearer(v, token) {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "a bearer token is required (authorization: Bearer TOKEN)")
}

func unaryAuth(token string) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if err := authorized(ctx, token); err != nil {
			return nil, err
		}
		return h(ctx, req)
	}
}

func streamAuth(token string) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if err := authorized(ss.Context(), token); err != nil {
			return err
		}
		return h(srv, ss)
	}
}

// restAuth requires the token on every request but the health probe.
func restAuth(token string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/health" && !bearer(r.Header.Get("Authorization"), token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ringfence"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"code":"UNAUTHENTICATED","message":"a bearer token is required"}`+"\n")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// restClientCert requires a verified client certificate on every request
// but the health probe.
func restClientCert(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/health" && (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"code":"UNAUTHENTICATED","message":"a client certificate is required"}`+"\n")
			return
		}
		next.ServeHTTP(w, r)
	})
}
