package bwrap

import (
	"sync"

	"github.com/ringfence/ringfence/internal/confine"
)

// Options configure the backend. The zero value looks bwrap up on PATH and
// uses the running executable as the exec shim.
type Options struct {
	// Path is the bwrap binary; "" looks "bwrap" up on PATH.
	Path string
	// Self is the ringfence binary bwrap runs as the exec shim where no
	// init image is carried (internal/confine/initimage; it must implement
	// `__exec`, see package shim), opened when each sandbox is planned;
	// "" uses the running binary, opened through /proc/self/exe.
	Self string
	// NoExpand leaves a read-only or denied path that does not exist yet
	// inside a writable root unprotected (reported as Files partial)
	// instead of expanding the root around it. Expansion protects it, but
	// nothing can then be created, removed or renamed directly in that
	// root: the trade the native backend's Landlock expansion makes too.
	NoExpand bool
	// NoSupervise leaves out the shim's unix-socket (and create-guard)
	// filter: connect() to host unix sockets is then not refused, and a
	// protected path that does not exist yet is not guarded (both
	// reported as Files partial). The shim still runs the command as its
	// child, as the sandbox's non-dumpable pid 1. Supervision is also off
	// where the kernel lacks seccomp user notification.
	NoSupervise bool
	// ProbeCache is a directory (absolute; the user's own cache) where a
	// successful probe of bwrap is remembered for this boot, user and bwrap
	// binary, so that later providers skip running bwrap twice before the
	// command (see markerPath). "" probes every time.
	ProbeCache string
}

// Provider is the bubblewrap backend. Available probes once and caches.
type Provider struct {
	opts  Options
	once  sync.Once
	host  hostInfo
	avail error
}

// hostInfo is what Available learned about this host's bwrap.
type hostInfo struct {
	path    string // absolute path of bwrap
	version string // e.g. "0.8.0"
	self    string // absolute path of the shim binary
	notify  bool   // the kernel supports seccomp user notification
}

// New returns the bwrap backend configured by opts.
func New(opts Options) *Provider { return &Provider{opts: opts} }

// Name is "bwrap".
func (p *Provider) Name() string { return Name }

// Traits implements confine.Provider: its own pid and network namespaces,
// no sessions, and a private /tmp that bwrap's --tmpfs makes writable in
// every mode.
func (p *Provider) Traits() confine.Traits {
	return confine.Traits{Namespaces: true, Scratch: confine.ScratchPrivateWritable}
}

// Available probes bwrap once (cached): on PATH, answers --version, and
// can build a sandbox with every namespace this backend asks for. The
// error says which step failed and why.
func (p *Provider) Available() error {
	p.once.Do(func() { p.host, p.avail = probe(p.opts) })
	return p.avail
}

// Version is the bwrap version Available found ("" when it did not get
// that far).
func (p *Provider) Version() string {
	_ = p.Available()
	return p.host.version
}

// Path is the bwrap binary Available found ("" when not found).
func (p *Provider) Path() string {
	_ = p.Available()
	return p.host.path
}

var _ confine.Provider = (*Provider)(nil)
