package linux

import (
	"archive/zip"
	"bytes"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/internal/testenv"
)

// goModProxy serves one module, example.test/hello v1.0.0, by the GOPROXY
// protocol.
func goModProxy(t *testing.T) http.Handler {
	t.Helper()
	const mod, ver = "example.test/hello", "v1.0.0"
	gomod := "module " + mod + "\n\ngo 1.21\n"
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range map[string]string{"go.mod": gomod, "hello.go": "package hello\n\nconst Greeting = \"fetched through the proxy\"\n"} {
		w, err := zw.Create(mod + "@" + ver + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	zw.Close()
	files := map[string][]byte{
		"/" + mod + "/@v/list":             []byte(ver + "\n"),
		"/" + mod + "/@v/" + ver + ".info": []byte(`{"Version":"` + ver + `","Time":"2024-01-01T00:00:00Z"}`),
		"/" + mod + "/@v/" + ver + ".mod":  []byte(gomod),
		"/" + mod + "/@v/" + ver + ".zip":  zb.Bytes(),
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[strings.TrimPrefix(r.URL.Path, "/mod")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})
}

// `go mod download` from a module proxy on a test host, through the
// sandbox's HTTPS proxy; refused when the proxy's host is not allowed.
func TestDomainsGoModDownload(t *testing.T) {
	goBin := "/usr/local/go/bin/go"
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = execLookPath("go"); err != nil {
			testenv.Need(t, "a go toolchain", err)
		}
	}
	e := inittest.NewEnv(t)
	tn := newTestInternet(t, e.Root)
	tn.handle("/mod/", goModProxy(t))
	for _, d := range []string{"/work/m", "/work/gopath", "/work/gopath2", "/work/gocache"} {
		if err := os.MkdirAll(e.Root+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(e.Root+"/work/m/go.mod", []byte("module m\n\ngo 1.21\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`cd "$ROOT/work/m" && export GOPATH="$ROOT/work/gopath" GOCACHE="$ROOT/work/gocache" GOFLAGS=-mod=mod GOSUMDB=off GOTOOLCHAIN=local GOPROXY=https://%%s/mod && %s mod download -json example.test/hello@v1.0.0 && cat "$GOPATH/pkg/mod/example.test/hello@v1.0.0/hello.go"`, goBin)
	res, evs := domainsRun(t, e, tn, []string{"pkg.test"}, nil, fmt.Sprintf(script, "pkg.test"))
	if res.Code != 0 || !strings.Contains(res.Stdout, "fetched through the proxy") {
		t.Fatalf("go mod download: exit %d\nstdout %s\nstderr %s\nevents %+v", res.Code, res.Stdout, res.Stderr, evs)
	}
	res, evs = domainsRun(t, e, tn, []string{"pkg.test"}, nil, fmt.Sprintf(strings.Replace(script, "work/gopath", "work/gopath2", 1), "other.test"))
	if res.Code == 0 {
		t.Fatalf("download from an unlisted host succeeded: %s", res.Stdout)
	}
	if ev, ok := findEvent(evs, "other.test"); !ok || ev.Verdict != netproxy.Deny {
		t.Fatalf("refusal not reported: %+v", evs)
	}
}
