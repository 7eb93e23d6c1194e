package linux

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/internal/testenv"
)

// npmRegistry serves one package, rf-hello 1.0.0, as an npm registry does:
// the packument at /npm/rf-hello and the tarball it names.
func npmRegistry(t *testing.T, host string) http.Handler {
	t.Helper()
	var tb bytes.Buffer
	gz := gzip.NewWriter(&tb)
	tw := tar.NewWriter(gz)
	for name, body := range map[string]string{
		"package/package.json": `{"name":"rf-hello","version":"1.0.0","main":"index.js"}`,
		"package/index.js":     `module.exports = "installed through the proxy";`,
	} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))})
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	tgz := tb.Bytes()
	s1 := sha1.Sum(tgz)
	s512 := sha512.Sum512(tgz)
	doc := fmt.Sprintf(`{"name":"rf-hello","dist-tags":{"latest":"1.0.0"},"versions":{"1.0.0":{"name":"rf-hello","version":"1.0.0",`+
		`"dist":{"tarball":"https://%s/npm/rf-hello/-/rf-hello-1.0.0.tgz","shasum":"%s","integrity":"sha512-%s"}}}}`,
		host, hex.EncodeToString(s1[:]), base64.StdEncoding.EncodeToString(s512[:]))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, ".tgz"):
			w.Write(tgz)
		case r.URL.Path == "/npm/rf-hello":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(doc))
		default:
			http.NotFound(w, r)
		}
	})
}

// `npm install` from a test registry through the sandbox's proxy (npm
// reads npm_config_https_proxy), refused for a registry not in the list.
func TestDomainsNpmInstall(t *testing.T) {
	if _, err := execLookPath("npm"); err != nil {
		testenv.Need(t, "npm", err)
	}
	e := inittest.NewEnv(t)
	tn := newTestInternet(t, e.Root)
	tn.handle("/npm/", npmRegistry(t, "pkg.test"))
	script := `d=$(mktemp -d -p "$ROOT/work") && cd "$d" && echo '{"name":"app","version":"1.0.0"}' > package.json && ` +
		`npm install --no-audit --no-fund --no-update-notifier --fetch-retries=0 --cafile "$NODE_EXTRA_CA_CERTS" --cache "$d/.cache" --registry https://%s/npm/ rf-hello >&2 && ` +
		`node -e 'console.log(require("rf-hello"))'`
	res, evs := domainsRun(t, e, tn, []string{"pkg.test"}, nil, fmt.Sprintf(script, "pkg.test"))
	if res.Code != 0 || !strings.Contains(res.Stdout, "installed through the proxy") {
		t.Fatalf("npm install: exit %d\nstdout %s\nstderr %s\nevents %+v", res.Code, res.Stdout, res.Stderr, evs)
	}
	res, evs = domainsRun(t, e, tn, []string{"pkg.test"}, nil, fmt.Sprintf(script, "other.test"))
	if res.Code == 0 {
		t.Fatalf("install from an unlisted registry succeeded: %s", res.Stdout)
	}
	if ev, ok := findEvent(evs, "other.test"); !ok || ev.Verdict != netproxy.Deny {
		t.Fatalf("refusal not reported: %+v", evs)
	}
}
