//go:build linux

package files

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzPaths sends any path, with every method, to a handler over the
// attack fixture: nothing outside the root may change, no answer may
// carry the outside sentinel, and every answer is one the contract names.
func FuzzPaths(f *testing.F) {
	for _, s := range []string{"a.txt", "%2E%2E/outside/sentinel", "out/x", "outfile", "hard", "/etc/passwd",
		"%2Fworkspace%2Fa.txt", "a%00b", "..%2F..%2Foutside", "x/../../outside/sentinel", "~/x", "C:x", "a\\b", "fifo"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if strings.ContainsAny(p, " ?#") {
			return // not a path the URL carries as one
		}
		g, _ := attackFix(t, nil)
		for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
			req := httptest.NewRequest(method, "/v1/files/x", strings.NewReader("FUZZ"))
			req.URL.RawPath, req.URL.Path = "", "/v1/files/"+p
			rec := httptest.NewRecorder()
			g.h.ServeHTTP(rec, req)
			switch rec.Code {
			case 200, 204, 301, 307, 308, 400, 403, 404, 409:
			default:
				t.Errorf("%s %q: %d %s", method, p, rec.Code, rec.Body)
			}
			if strings.Contains(rec.Body.String(), sentinel) {
				t.Errorf("%s %q leaked the sentinel", method, p)
			}
		}
		g.checkOutside(t)
	})
}
