package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/tools"
)

// The two roles the tests use: an agent's token and the person's.
var (
	agentCred    = Credential{Name: "agent", Token: "agent-token-0123456789"}
	approverCred = Credential{Name: "person", Token: "person-token-0123456789", Approver: true}
)

func (e *env) handler(creds ...Credential) http.Handler {
	e.t.Helper()
	h, err := e.srv.HTTPHandler(HTTPOptions{Credentials: creds})
	if err != nil {
		e.t.Fatal(err)
	}
	return h
}

func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr     string
		explicit bool
		ok       bool
	}{
		{"127.0.0.1:8080", false, true},
		{"127.9.9.9:1", false, true},
		{"[::1]:8080", false, true},
		{"localhost:8080", false, true},
		{":8080", false, false},
		{"0.0.0.0:8080", false, false},
		{"[::]:8080", false, false},
		{"192.168.1.10:8080", false, false},
		{"example.com:80", false, false},
		{"0.0.0.0:8080", true, true},
		{"nonsense", true, false},
	} {
		err := CheckListen(c.addr, c.explicit)
		if (err == nil) != c.ok {
			t.Errorf("CheckListen(%q, %v) = %v, want ok=%v", c.addr, c.explicit, err, c.ok)
		}
	}
	if !errors.Is(CheckListen(":1", false), ErrTokenRequired) {
		t.Fatal("not ErrTokenRequired")
	}
}

// HTTP is never served without a credential, nor with one that is weak or
// ambiguous.
func TestHTTPHandlerRefusesWeakCredentials(t *testing.T) {
	e := newEnv(t, tools.Options{})
	for name, creds := range map[string][]Credential{
		"none":           nil,
		"empty token":    {{Name: "a"}},
		"short token":    {{Name: "a", Token: "s3cret"}},
		"space in token": {{Name: "a", Token: "a token with spaces in it"}},
		"no name":        {{Token: agentCred.Token}},
		"same name":      {agentCred, {Name: "agent", Token: "another-token-0123456789"}},
		"same token":     {agentCred, {Name: "person", Token: agentCred.Token, Approver: true}},
	} {
		if _, err := e.srv.HTTPHandler(HTTPOptions{Credentials: creds}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for name, o := range map[string]HTTPOptions{
		"origin with path": {Credentials: []Credential{agentCred}, AllowOrigins: []string{"https://a.example/x"}},
		"wildcard origin":  {Credentials: []Credential{agentCred}, AllowOrigins: []string{"*"}},
		"null origin":      {Credentials: []Credential{agentCred}, AllowOrigins: []string{"null"}},
		"host with port":   {Credentials: []Credential{agentCred}, AllowHosts: []string{"a.example:80"}},
	} {
		if _, err := e.srv.HTTPHandler(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
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

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one raw JSON-RPC message; hdr holds extra headers (a "Host"
// entry sets the Host header).
func post(t *testing.T, url, body string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(b)
}

func bearerHdr(tok string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + tok}
}

func TestHTTPToken(t *testing.T) {
	e := newEnv(t, tools.Options{})
	ts := httptest.NewServer(e.handler(agentCred))
	t.Cleanup(ts.Close) // after the clients (cleanups run last-first)
	for _, tok := range []string{"", "wrong-token-0123456789", agentCred.Token + "x", agentCred.Token[:len(agentCred.Token)-1]} {
		if _, err := httpClient(t, ts.URL, tok, nil); err == nil {
			t.Fatalf("token %q: connected", tok)
		}
		hdr := bearerHdr(tok)
		if tok == "" {
			hdr = nil
		}
		if code, body := post(t, ts.URL, initBody, hdr); code != http.StatusUnauthorized {
			t.Fatalf("token %q: status %d %s", tok, code, body)
		}
	}
	// Other schemes and shapes are not a bearer token.
	for _, a := range []string{"Basic " + agentCred.Token, agentCred.Token, "Bearer", "Bearer  " + agentCred.Token + " x"} {
		if code, _ := post(t, ts.URL, initBody, map[string]string{"Authorization": a}); code != http.StatusUnauthorized {
			t.Fatalf("Authorization %q: status %d", a, code)
		}
	}
	// The check can fail: the right token connects and calls.
	if code, body := post(t, ts.URL, initBody, bearerHdr(agentCred.Token)); code != http.StatusOK {
		t.Fatalf("right token, raw: %d %s", code, body)
	}
	cs, err := httpClient(t, ts.URL, agentCred.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, st := call(t, cs, "list_files", map[string]any{"path": "."})
	wantKind(t, r, st, "ok", false)
}

// A session id is not a credential: reused without the token that opened
// the session, or with another credential's, it is refused; with its own
// it works (the control).
func TestHTTPSessionBoundToCredential(t *testing.T) {
	e := newEnv(t, tools.Options{})
	ts := httptest.NewServer(e.handler(agentCred, approverCred))
	t.Cleanup(ts.Close)
	cs, err := httpClient(t, ts.URL, agentCred.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	listCall := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_files","arguments":{"path":"."}}}`
	session := func(tok string) map[string]string {
		h := map[string]string{"Mcp-Session-Id": cs.ID(), "Mcp-Protocol-Version": "2025-11-25"}
		if tok != "" {
			h["Authorization"] = "Bearer " + tok
		}
		return h
	}
	if code, body := post(t, ts.URL, listCall, session("")); code != http.StatusUnauthorized {
		t.Fatalf("no token: %d %s", code, body)
	}
	if code, body := post(t, ts.URL, listCall, session("wrong-token-0123456789")); code != http.StatusUnauthorized {
		t.Fatalf("wrong token: %d %s", code, body)
	}
	// The person's credential is valid, but not this session's owner.
	if code, body := post(t, ts.URL, listCall, session(approverCred.Token)); code != http.StatusForbidden && code != http.StatusNotFound {
		t.Fatalf("another credential: %d %s", code, body)
	}
	if code, body := post(t, ts.URL, listCall, session(agentCred.Token)); code != http.StatusOK || !strings.Contains(body, `"result"`) {
		t.Fatalf("own credential (control): %d %s", code, body)
	}
	// A DELETE of the session with another credential neither ends it nor
	// its calls.
	req, _ := http.NewRequest(http.MethodDelete, ts.URL, nil)
	for k, v := range session(approverCred.Token) {
		req.Header.Set(k, v)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusNoContent {
			t.Fatalf("DELETE with another credential: %d", resp.StatusCode)
		}
	}
	r, st := call(t, cs, "list_files", map[string]any{"path": "."})
	wantKind(t, r, st, "ok", false)
}

// A web page in the person's browser must not drive the server: a foreign
// Origin, or a Host that is not a loopback name (DNS rebinding), is
// refused 403 even with a valid token. The controls: the same request
// without the header, from the server's own origin, or from an origin the
// person allowed, is served.
func TestHTTPOriginAndHost(t *testing.T) {
	e := newEnv(t, tools.Options{})
	h, err := e.srv.HTTPHandler(HTTPOptions{
		Credentials:  []Credential{agentCred},
		AllowOrigins: []string{"https://app.example:8443"},
		AllowHosts:   []string{"mcp.internal"},
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	own := strings.TrimPrefix(ts.URL, "http://")
	with := func(kv ...string) map[string]string {
		m := bearerHdr(agentCred.Token)
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for name, c := range map[string]struct {
		hdr  map[string]string
		want int
	}{
		"cross origin":            {with("Origin", "http://evil.example"), http.StatusForbidden},
		"cross origin, no token":  {map[string]string{"Origin": "http://evil.example"}, http.StatusForbidden},
		"other loopback port":     {with("Origin", "http://127.0.0.1:1"), http.StatusForbidden},
		"null origin":             {with("Origin", "null"), http.StatusForbidden},
		"empty origin":            {with("Origin", ""), http.StatusForbidden},
		"https own host":          {with("Origin", "https://"+own), http.StatusForbidden},
		"rebinding host":          {with("Host", "evil.example"), http.StatusForbidden},
		"rebinding host and port": {with("Host", "evil.example:"+strings.Split(own, ":")[1]), http.StatusForbidden},
		"localhost subdomain":     {with("Host", "evil.localhost"), http.StatusForbidden},
		"rebinding with origin":   {with("Host", "evil.example", "Origin", "http://evil.example"), http.StatusForbidden},
		"no origin (control)":     {with(), http.StatusOK},
		"own origin (control)":    {with("Origin", "http://"+own), http.StatusOK},
		"allowed origin":          {with("Origin", "https://APP.example:8443"), http.StatusOK},
		"localhost host":          {with("Host", "localhost:1234", "Origin", "http://localhost:1234"), http.StatusOK},
		"ipv6 loopback host":      {with("Host", "[::1]:1"), http.StatusOK},
		// An allowed name is for a listener others reach by that name; on
		// a loopback listener the SDK's own rebinding check still refuses it.
		"allowed host on loopback": {with("Host", "mcp.internal:80"), http.StatusForbidden},
	} {
		if code, body := post(t, ts.URL, initBody, c.hdr); code != c.want {
			t.Errorf("%s: status %d, want %d: %s", name, code, c.want, body)
		}
	}
}

// Approvals never come from the asker: a session opened with the agent's
// credential has no gate, so what needs a person is not run — even by a
// client that declares elicitation and would say yes — and the model is
// told this client cannot approve. The control: the person's credential,
// same request, is asked and approves.
func TestHTTPAgentCannotApprove(t *testing.T) {
	e := gateEnv(t, 10*time.Second)
	ts := httptest.NewServer(e.handler(agentCred, approverCred))
	t.Cleanup(ts.Close)
	yes := &elicitor{}
	yes.set("accept", choiceSession, "")
	agent, err := httpClient(t, ts.URL, agentCred.Token, yes)
	if err != nil {
		t.Fatal(err)
	}
	r, st := call(t, agent, "write_file", map[string]any{"path": hook, "content": "x"})
	if !r.IsError || st.Outcome.Kind == "ok" || yes.count() != 0 {
		t.Fatalf("agent session: %s, asked %d", st.Outcome.Kind, yes.count())
	}
	if _, err := os.Stat(filepath.Join(e.root, hook)); err == nil {
		t.Fatal("the agent's own session approved its write")
	}
	if e.sb.Backend() != "" {
		r, st = call(t, agent, "run_command", map[string]any{"argv": []string{"frobnicate-widget"}})
		wantKind(t, r, st, "gate-unavailable", true)
		if st.Outcome.Reason != "no-gate" || !strings.Contains(text(r), "this client cannot approve") || yes.count() != 0 {
			t.Fatalf("reason %q asked %d: %s", st.Outcome.Reason, yes.count(), text(r))
		}
	}
	person, err := httpClient(t, ts.URL, approverCred.Token, yes)
	if err != nil {
		t.Fatal(err)
	}
	r, st = call(t, person, "write_file", map[string]any{"path": hook, "content": "x"})
	wantKind(t, r, st, "ok", false)
	if yes.count() != 1 {
		t.Fatalf("the person was asked %d times", yes.count())
	}
}

// TestHTTPSessionsAndConcurrency: several HTTP sessions, each with many
// concurrent calls, each with its own approvals, every call in the trail
// under its own label and none under its session id.
func TestHTTPSessionsAndConcurrency(t *testing.T) {
	e := gateEnv(t, 10*time.Second)
	e.needBackend()
	ts := httptest.NewServer(e.handler(approverCred))
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
		cs, err := httpClient(t, ts.URL, approverCred.Token, els[i])
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
	e.trail.mu.Lock()
	trail := e.trail.b.String()
	e.trail.mu.Unlock()
	for i, cs := range css {
		if cs.ID() == "" || strings.Contains(trail, cs.ID()) {
			t.Fatalf("session %d: the trail holds its id %q", i, cs.ID())
		}
	}
}

// Serving MCP() over HTTP without HTTPHandler (no credentials at all)
// never makes the client an approver: its calls carry headers but no
// approver token, so they have no gate.
func TestRawHTTPTransportCannotApprove(t *testing.T) {
	e := gateEnv(t, 10*time.Second)
	raw := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return e.srv.MCP() }, nil)
	ts := httptest.NewServer(raw)
	t.Cleanup(ts.Close)
	yes := &elicitor{}
	yes.set("accept", choiceOnce, "")
	cs, err := httpClient(t, ts.URL, "", yes)
	if err != nil {
		t.Fatal(err)
	}
	r, st := call(t, cs, "write_file", map[string]any{"path": hook, "content": "x"})
	if !r.IsError || yes.count() != 0 {
		t.Fatalf("%s, asked %d", st.Outcome.Kind, yes.count())
	}
	// The control: the same client over memory (a person's own client) is asked.
	r, st = call(t, e.connect(yes), "write_file", map[string]any{"path": hook, "content": "x"})
	wantKind(t, r, st, "ok", false)
	if yes.count() != 1 {
		t.Fatalf("asked %d", yes.count())
	}
}
