package sandboxd

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func TestHealth(t *testing.T) {
	h := &Health{}
	get := func(method, path string) (int, string) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w.Code, w.Body.String()
	}
	if c, b := get("GET", "/v1/health"); c != 200 || strings.TrimSpace(b) != `{"status":"ok"}` {
		t.Fatalf("%d %q", c, b)
	}
	if c, _ := get("GET", "/v1/files/x"); c != 404 {
		t.Fatalf("files without the REST API: %d", c)
	}
	if c, _ := get("POST", "/v1/health"); c != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", c)
	}
	h.SetShuttingDown()
	if c, _ := get("GET", "/v1/health"); c != http.StatusServiceUnavailable {
		t.Fatalf("after SetShuttingDown: %d", c)
	}
}

func TestBearer(t *testing.T) {
	const tok = "0123456789abcdef0123"
	for _, c := range []struct {
		v  string
		ok bool
	}{
		{"Bearer " + tok, true}, {"bearer " + tok, false}, {"Bearer " + tok + "x", false},
		{"Bearer " + tok[:10], false}, {tok, false}, {"", false}, {"Bearer ", false},
	} {
		if bearer(c.v, tok) != c.ok {
			t.Errorf("bearer(%q) = %v", c.v, !c.ok)
		}
	}
}

func TestRESTAuthSparesOnlyHealth(t *testing.T) {
	const tok = "0123456789abcdef0123"
	h := restAuth(tok, &Health{})
	for _, c := range []struct {
		path, auth string
		want       int
	}{
		{"/v1/health", "", 200},
		{"/v1/metadata", "", 401},
		{"/v1/files/a", "Bearer nope", 401},
		{"/v1/health/../metadata", "", 401},
		{"/v1/files/a", "Bearer " + tok, 404}, // through to the handler
	} {
		r := httptest.NewRequest("GET", "http://x"+c.path, nil)
		if c.auth != "" {
			r.Header.Set("Authorization", c.auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("%s %q: %d, want %d", c.path, c.auth, w.Code, c.want)
		}
	}
}

func TestGRPCAuth(t *testing.T) {
	const tok = "0123456789abcdef0123"
	ua := unaryAuth(tok)
	called := false
	h := func(context.Context, any) (any, error) { called = true; return nil, nil }
	for _, c := range []struct {
		md   metadata.MD
		want codes.Code
	}{
		{nil, codes.Unauthenticated},
		{metadata.Pairs("authorization", "Bearer wrong"), codes.Unauthenticated},
		{metadata.Pairs("authorization", "Bearer "+tok), codes.OK},
	} {
		called = false
		ctx := metadata.NewIncomingContext(context.Background(), c.md)
		_, err := ua(ctx, nil, &grpc.UnaryServerInfo{}, h)
		if status.Code(err) != c.want || called != (c.want == codes.OK) {
			t.Errorf("%v: %v (handler called %v)", c.md, err, called)
		}
	}
}

func TestServeNeedsListeners(t *testing.T) {
	if err := Serve(context.Background(), Config{}); err == nil {
		t.Fatal("Serve without listeners started")
	}
}
