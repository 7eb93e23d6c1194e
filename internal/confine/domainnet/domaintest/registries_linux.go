//go:build linux

package domaintest

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
)

// goModProxy serves one module, example.test/hello v1.0.0, by the GOPROXY
// protocol.
func goModProxy() (http.Handler, error) {
	const mod, ver = "example.test/hello", "v1.0.0"
	gomod := "module " + mod + "\n\ngo 1.21\n"
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for name, body := range map[string]string{"go.mod": gomod, "hello.go": "package hello\n\nconst Greeting = \"fetched through the proxy\"\n"} {
		w, err := zw.Create(mod + "@" + ver + "/" + name)
		if err != nil {
			return nil, err
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
	}), nil
}

// npmRegistry serves one package, rf-hello 1.0.0, as an npm registry does:
// the packument at /npm/rf-hello and the tarball it names.
func npmRegistry(host string) http.Handler {
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
