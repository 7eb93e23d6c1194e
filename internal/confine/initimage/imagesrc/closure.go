package imagesrc

import "strings"

// Denied are packages the init must not link, each with why: every
// package the init links is carried in every ringfence binary, copied
// into a memfd on every run and mapped whole by the init (its RSS follows
// the blob's size), so the init is kept to what it runs. A path ending in
// "/..." denies the package and everything beneath it, as go list reads
// the pattern ("crypto/..." denies crypto and crypto/tls); any other path
// denies that package alone (internal/confine, not internal/confine/seccomp).
//
// Each of these came in once through one import (policy -> netproxy ->
// net/http; initproc -> internal/confine; seccomp -> crypto/rand) and
// doubled the blob; the split packages (internal/netproxy/netrule,
// internal/confine/domainnet/sandboxnet, initimage.NewCmd) keep them out.
var Denied = []struct{ Path, Why string }{
	{"net/http/...", "the proxy's HTTP side (internal/netproxy); the init uses netrule"},
	{"net", "package net (~160 KB of the blob): domainnet/sandboxnet serves its sockets through os.File and the poller"},
	{"net/url", "comes with net/http"},
	{"net/textproto", "comes with net/http"},
	{"net/mail", "mail parsing"},
	{"net/rpc/...", "RPC"},
	{"net/smtp", "mail"},
	{"crypto/...", "the crypto module (FIPS self-checks, math/big); the init needs no cryptography (getrandom is unix.Getrandom)"},
	{"math/big", "comes with crypto"},
	{"math/rand/...", "comes with crypto/rand"},
	{"mime/...", "comes with net/http"},
	{"compress/...", "comes with net/http"},
	{"archive/...", "archives"},
	{"encoding/gob", "reflection-heavy encoding"},
	{"encoding/xml", "reflection-heavy encoding"},
	{"encoding/asn1", "comes with crypto/x509"},
	{"encoding/pem", "comes with crypto/x509"},
	{"text/template/...", "reflection-heavy (keeps every exported method)"},
	{"html/...", "templates"},
	{"log/slog/...", "structured logging"},
	{"database/...", "databases"},
	{"image/...", "images"},
	{"debug/...", "object-file readers"},
	{"go/...", "the Go toolchain's packages"},
	{"expvar", "comes with net/http"},
	{"github.com/ringfence/ringfence", "the library facade"},
	{"github.com/ringfence/ringfence/internal/confine", "the supervisors' side (Cmd, outcome, the proxy); the init's parent side is initimage.NewCmd"},
	{"github.com/ringfence/ringfence/internal/netproxy", "the proxy (net/http); the init uses internal/netproxy/netrule"},
	{"github.com/ringfence/ringfence/internal/confine/domainnet", "the supervisor half of the domains network; the init uses domainnet/sandboxnet"},
	{"github.com/ringfence/ringfence/outcome", "run results, a host-side type"},
	{"github.com/ringfence/ringfence/internal/mcp/...", "the MCP server"},
	{"github.com/ringfence/ringfence/cmd/...", "the CLI"},
	{"google.golang.org/...", "gRPC and protobuf"},
	{"github.com/modelcontextprotocol/...", "the MCP SDK"},
}

// Heavy returns the denied packages among pkgs, each as "path (why)".
func Heavy(pkgs []string) []string {
	var out []string
	for _, p := range pkgs {
		for _, d := range Denied {
			tree, ok := strings.CutSuffix(d.Path, "/...")
			if p == d.Path || ok && (p == tree || strings.HasPrefix(p, tree+"/")) {
				out = append(out, p+" ("+d.Why+")")
				break
			}
		}
	}
	return out
}

// MaxSize bounds the blob. The init maps the whole blob (the kernel's
// fault-around fills the mapping from the memfd's pages), so its peak RSS
// is the blob's size plus about 950 KiB of its own (heap, stacks, data):
// 3150 KiB keeps it within issue 16's 4 MiB. Raising it needs a reason.
const MaxSize = 3150 << 10
