package initimage

import (
	"slices"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initimage/imagesrc"
)

// The init links none of the denied packages (net/http, crypto, math/big,
// mime, compress, the supervisors' side, …): one import of the wrong
// package (policy importing the proxy again, initproc building a
// confine.Cmd again) would double the blob every run copies and maps,
// and the freshness test would only ask for it to be regenerated.
func TestInitLinksNoHeavyPackage(t *testing.T) {
	root, err := imagesrc.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := imagesrc.Packages(root)
	if err != nil {
		t.Fatal(err)
	}
	// The control: the listing is the init's (its own packages are in
	// it), so an empty or wrong listing cannot pass for a clean one.
	for _, want := range []string{imagesrc.Main, "github.com/ringfence/ringfence/internal/confine/initproc", "github.com/ringfence/ringfence/policy", "runtime"} {
		if !slices.Contains(pkgs, want) {
			t.Fatalf("go list of the init lacks %s: %d packages", want, len(pkgs))
		}
	}
	if heavy := imagesrc.Heavy(pkgs); len(heavy) > 0 {
		t.Fatalf("the init links %d denied packages (see imagesrc.Denied; find the import with `go list -deps -f '{{.ImportPath}}: {{.Imports}}' %s`):\n  %s",
			len(heavy), imagesrc.Main, strings.Join(heavy, "\n  "))
	}
	t.Logf("the init links %d packages", len(pkgs))
}

// The committed blob is within MaxSize (its peak RSS follows its size).
func TestEmbeddedInitIsSmall(t *testing.T) {
	if rec := record(t); rec.Size > imagesrc.MaxSize {
		t.Fatalf("%s is %d KiB, over imagesrc.MaxSize (%d KiB): the init maps it whole, so its RSS grows with it", imagesrc.Blob, rec.Size>>10, imagesrc.MaxSize>>10)
	}
}

// Heavy judges by path: the closure before the split is refused for each
// heavy package it held, the closure after it passes, and a name that only
// shares a prefix is not a match.
func TestHeavy(t *testing.T) {
	before := []string{"runtime", "net/http", "crypto/tls", "crypto", "math/big", "mime/multipart", "compress/gzip",
		"github.com/ringfence/ringfence/internal/netproxy", "github.com/ringfence/ringfence/internal/confine",
		"github.com/ringfence/ringfence/outcome", "net", "net/url"}
	if got := imagesrc.Heavy(before); len(got) != len(before)-1 {
		t.Fatalf("the old closure: %d of %d flagged: %q", len(got), len(before)-1, got)
	}
	after := []string{"runtime", "net/netip", "encoding/json", "encoding/binary", "encoding/hex", "math/bits", "os/signal",
		"runtime/debug", "hash/fnv", "github.com/ringfence/ringfence/internal/netproxy/netrule",
		"github.com/ringfence/ringfence/internal/confine/initproc", "github.com/ringfence/ringfence/internal/confine/seccomp",
		"github.com/ringfence/ringfence/internal/confine/domainnet/sandboxnet", "github.com/ringfence/ringfence/policy",
		"github.com/ringfence/ringfence/pathrule", "cryptography/x", "netx", "github.com/ringfence/ringfencex"}
	if got := imagesrc.Heavy(after); len(got) != 0 {
		t.Fatalf("the slim closure flagged: %q", got)
	}
	for _, p := range []string{"crypto/internal/fips140/sha256", "text/template/parse", "github.com/ringfence/ringfence/cmd/ringfence", "google.golang.org/grpc"} {
		if len(imagesrc.Heavy([]string{p})) != 1 {
			t.Errorf("%s not flagged", p)
		}
	}
}
