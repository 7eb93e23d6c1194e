package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/tools"
)

func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8080", "", true},
		{"127.9.9.9:1", "", true},
		{"[::1]:8080", "", true},
		{"localhost:8080", "", true},
		{":8080", "", false},
		{"0.0.0.0:8080", "", false},
		{"[::]:8080", "", false},
		{"192.168.1.10:8080", "", false},
		{"example.com:80", "", false},
		{"0.0.0.0:8080", "s3cret", true},
		{"nonsense", "", false},
	} {
		err := CheckListen(c.addr, c.token)
		if (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, %q) = %v, want ok=%v", c.addr, c.token, err, c.ok)
		}
	}
	if !errors.Is(CheckListen(":1", ""), ErrTokenRequired) {
		t.Fatal("not ErrTokenRequired")
	}
}

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func httpClient(t *testing.T, url, token string, el *elicitor) (*sdk.ClientSession, error) {
	tr := &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerRT{token}}}
	opts := &sdk.ClientOptions{}
	if el != nil {
		opts.ElicitationHandler = el.handle
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "http-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func TestHTTPToken(t *testing.T) {
	e := newEnv(t, tools.Options{})
	ts := httptest.NewServer(e.srv.HTTPHandler("right-token"))
	t.Cleanup(ts.Close) // after the clients (cleanups run last-first)
	for _, tok := range []string{"", "wrong-token", "right-token-and-more"} {
		if _, err := httpClient(t, ts.URL, tok, nil); err == nil {
			t.Fatalf("token %q: connected", tok)
		}
		resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	// The check can fail: the right token connects and calls.
	cs, err := httpClient(t, ts.URL, "right-token", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, st := call(t, cs, "list_files", map[string]any{"path": "."})
	wantKind(t, r, st, "ok", false)
}

// TestHTTPSessionsAndConcurrency: several HTTP sessions, each with many
// concurrent calls, each with its own approvals, every call in the trail.
func TestHTTPSessionsAndConcurrency(t *testing.T) {
	e := gateEnv(t, 10*time.Second)
	e.needBackend()
	ts := httptest.NewServer(e.srv.HTTPHandler(""))
	t.Cleanup(ts.Close) // after the clients (cleanups run last-first)
	const sessions, calls = 3, 8
	els := make([]*elicitor, sessions)
	css := make([]*sdk.ClientSession, sessions)
	for i := range sessions {
		els[i] = &elicitor{}
		els[i].set("accept", choiceSession, "")
		if i == 2 {
			els[i].set("decline", "", "")
		}
		cs, err := httpClient(t, ts.URL, "", els[i])
		if err != nil {
			t.Fatal(err)
		}
		css[i] = cs
	}
	var wg sync.WaitGroup
	for i, cs := range css {
		for j := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := fmt.Sprintf("s%d-c%d.txt", i, j)
				r, st := call(t, cs, "write_file", map[string]any{"path": name, "content": name})
				wantKind(t, r, st, "ok", false)
				r, st = call(t, cs, "run_command", map[string]any{"command": "cat " + name})
				wantKind(t, r, st, "ok", false)
				if !strings.Contains(text(r), name) {
					t.Errorf("session %d call %d read %q", i, j, text(r))
				}
			}()
		}
	}
	wg.Wait()
	// Approvals stay in their session: 0 approves for the session, then 1
	// is still asked, then 2 is asked and declines.
	for i, cs := range css {
		r, st := call(t, cs, "write_file", map[string]any{"path": hook, "content": "x"})
		want := "ok"
		if i == 2 {
			want = "gate-declined"
		}
		wantKind(t, r, st, want, want != "ok")
	}
	r, st := call(t, css[0], "write_file", map[string]any{"path": hook, "content": "y"})
	wantKind(t, r, st, "ok", false)
	for i, n := range []int{1, 1, 1} {
		if els[i].count() != n {
			t.Errorf("session %d asked %d times, want %d", i, els[i].count(), n)
		}
	}
	recs := e.trail.records(t, audit.Filter{})
	if len(recs) != sessions*calls*2+sessions+1 {
		t.Fatalf("%d records, want %d", len(recs), sessions*calls*2+sessions+1)
	}
	perSession := map[string]int{}
	for _, r := range recs {
		perSession[r.Session]++
	}
	if len(perSession) != sessions {
		t.Fatalf("sessions in the trail: %v", perSession)
	}
}
