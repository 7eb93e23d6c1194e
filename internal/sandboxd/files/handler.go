package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ringfence/ringfence/internal/sandboxd/wire"
	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

// Defaults of the bounds.
const (
	DefaultMetadataEnvPrefix = "SANDBOX_"
	DefaultMaxUploadBytes    = 256 << 20 // the agent-sandbox SDKs' own upload ceiling
	DefaultMaxListEntries    = 100_000
	DefaultUploadIdle        = 30 * time.Second
)

// Options configures a Handler. Root and Workspace are required.
type Options struct {
	// Root is the host workspace directory (--root-dir). It must be the
	// Workspace's root once links are resolved: the handler refuses to
	// serve one tree while the fence guards another.
	Root string
	// Workspace is the fence every file operation goes through; its
	// policy is the deployment's resolved policy, its mount path how
	// clients see the root ("/workspace").
	Workspace *workspace.Workspace
	// MetadataEnvPrefix selects the variables /v1/metadata shows; ""
	// is DefaultMetadataEnvPrefix.
	MetadataEnvPrefix string
	// Environ is read once, by NewHandler; nil is os.Environ.
	Environ func() []string
	// MaxUploadBytes bounds one PUT's file; 0 is DefaultMaxUploadBytes.
	MaxUploadBytes int64
	// MaxListEntries bounds one listing; 0 is DefaultMaxListEntries. A
	// longer directory is cut, and the outcome header says so.
	MaxListEntries int
	// UploadIdle bounds how long a PUT's body may send nothing: a client
	// that stalls (or trickles nothing) is cut, its temp file removed. 0 is
	// DefaultUploadIdle. Without it a stalled upload held its connection,
	// a directory and a temp file descriptor for good, and a few hundred
	// of them used up the server's descriptors.
	UploadIdle time.Duration
	// AllowHardLinkReads serves files with more than one hard link. Off,
	// they are refused (403): another name of the inode may lie outside
	// the root, where the fence's path checks cannot see it.
	AllowHardLinkReads bool
}

// Handler serves the agent-sandbox Filesystem & Runtime REST API over a
// ringfence workspace. It is safe for concurrent use.
type Handler struct {
	opts     Options
	ws       *workspace.Workspace
	mux      *http.ServeMux
	meta     []byte // the /v1/metadata answer, fixed at start
	started  time.Time
	shutting atomic.Bool
	narrate  outcome.Context
}

// NewHandler checks opts and builds the handler.
func NewHandler(opts Options) (*Handler, error) {
	if opts.Workspace == nil {
		return nil, errors.New("files: a workspace is required")
	}
	if opts.Root == "" {
		return nil, errors.New("files: a root is required")
	}
	root, err := filepath.Abs(opts.Root)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		return nil, fmt.Errorf("files: root: %w", err)
	}
	if root != filepath.Clean(opts.Workspace.Root()) {
		return nil, fmt.Errorf("files: root %s is not the workspace's root %s", root, opts.Workspace.Root())
	}
	if opts.MetadataEnvPrefix == "" {
		opts.MetadataEnvPrefix = DefaultMetadataEnvPrefix
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ
	}
	if opts.MaxUploadBytes <= 0 {
		opts.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if opts.UploadIdle <= 0 {
		opts.UploadIdle = DefaultUploadIdle
	}
	if opts.MaxListEntries <= 0 {
		opts.MaxListEntries = DefaultMaxListEntries
	}
	opts.Root = root
	meta, err := json.Marshal(MetadataResponse{Env: metadataEnv(opts.Environ(), opts.MetadataEnvPrefix)})
	if err != nil {
		return nil, err
	}
	pol := opts.Workspace.Policy()
	h := &Handler{opts: opts, ws: opts.Workspace, meta: meta, started: time.Now(),
		narrate: outcome.Context{MountPath: opts.Workspace.MountPath(), HostRoot: root, Mode: pol.Mode.String()}}
	mux := http.NewServeMux()
	// A GET pattern serves HEAD too, with the body dropped by net/http.
	mux.HandleFunc("GET /v1/files/{path...}", h.get)
	mux.HandleFunc("PUT /v1/files/{path...}", h.put)
	mux.HandleFunc("DELETE /v1/files/{path...}", h.delete)
	mux.HandleFunc("GET /v1/health", h.health)
	mux.HandleFunc("GET /v1/metadata", h.metadata)
	h.mux = mux
	return h, nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// SetShuttingDown flips /v1/health to 503 for good: the server is
// draining, and Kubernetes should stop sending it work.
func (h *Handler) SetShuttingDown() { h.shutting.Store(true) }

// Server wraps the handler in an http.Server with bounds a loopback API
// still wants: slow headers and idle connections are cut, headers capped.
func (h *Handler) Server(addr string, idle time.Duration) *http.Server {
	if idle <= 0 {
		idle = 60 * time.Second
	}
	return &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: idle, MaxHeaderBytes: 64 << 10}
}

func (h *Handler) health(w http.ResponseWriter, _ *http.Request) {
	if h.shutting.Load() {
		writeJSON(w, http.StatusServiceUnavailable, Error{Code: CodeUnavailable, Message: "the server is shutting down"})
		return
	}
	writeJSON(w, http.StatusOK, HealthResponse{Status: "ok", UptimeSeconds: int64(time.Since(h.started).Seconds())})
}

func (h *Handler) metadata(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(h.meta, '\n'))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// fail answers a refused or failed file operation: the spec's status and
// error body, the narration as its message, the outcome in the header.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	o, ok := outcome.Of(err)
	if !ok {
		o = outcome.Outcome{Kind: outcome.IOFailure, Detail: "the request could not be served"}
	}
	o = h.narrate.Scrub(o)
	status, code := statusOf(r.Method, o)
	w.Header().Set(wire.OutcomeHeader, outcomeHeader(o))
	writeJSON(w, status, Error{Code: code, Message: strings.TrimSpace(outcome.Narrate(o, h.narrate))})
}

// badRequest answers a malformed parameter, before the fence is asked.
func (h *Handler) badRequest(w http.ResponseWriter, detail string) {
	o := outcome.Outcome{Kind: outcome.InvalidArguments, Detail: detail}
	w.Header().Set(wire.OutcomeHeader, outcomeHeader(o))
	writeJSON(w, http.StatusBadRequest, Error{Code: CodeInvalidArgument, Message: detail})
}

func (h *Handler) ok(w http.ResponseWriter, o outcome.Outcome) {
	w.Header().Set(wire.OutcomeHeader, outcomeHeader(h.narrate.Scrub(o)))
}

// modelPath is the {path} of a request as the fence takes it: "", "." and
// "/" name the root; an absolute path under the host root is made one
// under the mount path (the reference daemon accepts both); every other
// absolute path goes to the fence as it is, which refuses it.
func (h *Handler) modelPath(r *http.Request) string {
	p := r.PathValue("path")
	switch {
	case p == "" || p == "." || p == "/":
		return ""
	case p == h.opts.Root:
		return h.ws.MountPath()
	case strings.HasPrefix(p, h.opts.Root+"/"):
		return h.ws.MountPath() + p[len(h.opts.Root):]
	}
	return p
}
