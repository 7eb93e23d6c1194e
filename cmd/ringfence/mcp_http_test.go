package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/testenv"
)

// httpServer is `ringfence mcp --http …` running in this process.
type httpServer struct {
	stderr    *testenv.LockedBuffer
	url       string // http://127.0.0.1:port/ (TCP only)
	tokenPath string // the generated token's file, when one was
	stop      func() error
}

var (
	servingRE = regexp.MustCompile(`serving MCP on (http://[^ ;]+/|unix:[^ ;]+)`)
	tokenRE   = regexp.MustCompile(`the bearer token is in (\S+) `)
)

// startHTTP runs `ringfence mcp args…` and waits until it serves.
func startHTTP(t *testing.T, args ...string) *httpServer {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user policy file
	cmd := newMCPCmd()
	cmd.SetArgs(args)
	s := &httpServer{stderr: &testenv.LockedBuffer{}}
	cmd.SetErr(s.stderr)
	cmd.SetOut(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	var stopped bool
	var stopErr error
	s.stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			stopErr = <-done
		}
		return stopErr
	}
	t.Cleanup(func() { _ = s.stop() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := servingRE.FindStringSubmatch(s.stderr.String()); m != nil {
			s.url = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the server ended: %v\n%s", err, s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start:\n%s", s.stderr.String())
		}
	}
	if m := tokenRE.FindStringSubmatch(s.stderr.String()); m != nil {
		s.tokenPath = m[1]
	}
	return s
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.base.RoundTrip(r)
}

func connectHTTP(t *testing.T, url string, rt http.RoundTripper) (*sdk.ClientSession, error) {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "cli-http-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: rt}}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func callText(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// Without --token-file, a token is generated into a new file only this
// user can read (0600, in a 0700 directory), its path — never the token —
// is printed, a request without it is refused, and it is gone after.
func TestMCPHTTPGeneratesPrivateToken(t *testing.T) {
	for _, backend := range []string{"linux", "bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) { generatesPrivateToken(t, backend) })
	}
}

func generatesPrivateToken(t *testing.T, backend string) {
	needBackend(t, backend)
	root := workspace(t)
	s := startHTTP(t, "--root", root, "--backend", backend, "--http", "127.0.0.1:0")
	if s.tokenPath == "" {
		t.Fatalf("no token path printed:\n%s", s.stderr.String())
	}
	fi, err := os.Lstat(s.tokenPath)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi.Mode(), err)
	}
	if di, err := os.Lstat(filepath.Dir(s.tokenPath)); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("token dir: %v %v", di.Mode(), err)
	}
	b, _ := os.ReadFile(s.tokenPath)
	token := strings.TrimSpace(string(b))
	if len(token) < 32 || strings.Contains(s.stderr.String(), token) {
		t.Fatalf("token %d chars; stderr holds it: %v", len(token), strings.Contains(s.stderr.String(), token))
	}
	if _, err := connectHTTP(t, s.url, bearer{"", http.DefaultTransport}); err == nil {
		t.Fatal("connected without the token")
	}
	resp, err := http.Post(s.url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no token: status %d", resp.StatusCode)
	}
	cs, err := connectHTTP(t, s.url, bearer{token, http.DefaultTransport})
	if err != nil {
		t.Fatalf("with the token (control): %v", err)
	}
	if text, isErr := callText(t, cs, "list_files", map[string]any{"path": "."}); isErr {
		t.Fatalf("list_files: %s", text)
	}
	// Commands still run with the token's directory denied to them, and
	// do not see the token.
	{
		if text, isErr := callText(t, cs, "run_command", map[string]any{"command": "echo still-runs"}); isErr || !strings.Contains(text, "still-runs") {
			t.Fatalf("run_command beside the denied token: %s", text)
		}
		if text, _ := callText(t, cs, "run_command", map[string]any{"command": "cat " + s.tokenPath}); strings.Contains(text, token) {
			t.Fatalf("the sandbox read the generated token:\n%s", text)
		}
	}
	cs.Close()
	if err := s.stop(); err != nil {
		t.Fatalf("server: %v", err)
	}
	if _, err := os.Lstat(filepath.Dir(s.tokenPath)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the generated token outlived the server: %v", err)
	}
}

// The token never reaches a sandboxed command: not in its arguments or
// environment, and its file is unreadable inside — under allow-all, where
// the command can reach the server, this is what keeps it out. The
// control: the same file is readable outside the sandbox.
func TestMCPHTTPTokenHiddenFromSandbox(t *testing.T) {
	for _, backend := range []string{"linux", "bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) { tokenHiddenFromSandbox(t, backend) })
	}
}

func tokenHiddenFromSandbox(t *testing.T, backend string) {
	needBackend(t, backend)
	root := workspace(t)
	// Kept inside the workspace (the worst place), where the sandbox reads
	// and writes everything else.
	out := filepath.Join(root, "mcp.token")
	s := startHTTP(t, "--root", root, "--backend", backend, "--http", "127.0.0.1:0", "--network", "allow-all", "--token-out", out)
	b, err := os.ReadFile(out)
	if err != nil || s.tokenPath != out {
		t.Fatalf("control: the token file is unreadable outside: %v (printed %q)", err, s.tokenPath)
	}
	token := strings.TrimSpace(string(b))
	cs, err := connectHTTP(t, s.url, bearer{token, http.DefaultTransport})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{
		"cat " + out,
		"env; cat /proc/self/cmdline /proc/1/cmdline /proc/1/environ 2>/dev/null; ls -la .",
		"cp mcp.token copy.txt; cat copy.txt",
	} {
		text, _ := callText(t, cs, "run_command", map[string]any{"command": c})
		if strings.Contains(text, token) {
			t.Fatalf("%q showed the token:\n%s", c, text)
		}
	}
	text, isErr := callText(t, cs, "run_command", map[string]any{"command": "cat " + out})
	if !isErr {
		t.Fatalf("reading the token file inside the sandbox was not refused:\n%s", text)
	}
	if text, isErr := callText(t, cs, "read_file", map[string]any{"path": "mcp.token"}); !isErr || strings.Contains(text, token) {
		t.Fatalf("read_file of the token file was not refused:\n%s", text)
	}
}

// Token files are refused when another user could read them, when they
// are not this user's, or too short; --token (argv) is refused outright;
// --token-out never writes over an existing file or through a link.
func TestMCPHTTPTokenFileChecks(t *testing.T) {
	root := t.TempDir()
	dir := t.TempDir()
	file := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	good := file("good", "a-good-token-0123456789\n", 0o600)
	readable := file("readable", "a-good-token-0123456789\n", 0o644)
	short := file("short", "s3cret\n", 0o600)
	empty := file("empty", "\n", 0o600)
	existing := file("existing", "keep me", 0o600)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{
		"argv token":        {"--http", "127.0.0.1:0", "--token", "a-good-token-0123456789"},
		"readable file":     {"--http", "127.0.0.1:0", "--token-file", readable},
		"short token":       {"--http", "127.0.0.1:0", "--token-file", short},
		"empty file":        {"--http", "127.0.0.1:0", "--token-file", empty},
		"missing file":      {"--http", "127.0.0.1:0", "--token-file", filepath.Join(dir, "missing")},
		"token-out exists":  {"--http", "127.0.0.1:0", "--token-out", existing},
		"token-out link":    {"--http", "127.0.0.1:0", "--token-out", link},
		"readable approver": {"--http", "127.0.0.1:0", "--approver-token-file", readable},
		"same tokens":       {"--http", "127.0.0.1:0", "--token-file", good, "--approver-token-file", good},
		"public, generated": {"--http", "0.0.0.0:0"},
		"public, unix rel":  {"--http", "unix:rel.sock"},
		"stdio with token":  {"--token-file", good},
	} {
		_, err := runCobra(t, append([]string{"mcp", "--root", root}, args...)...)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != exitUsage {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me" {
		t.Fatal("--token-out wrote over an existing file")
	}
	if _, err := os.Lstat(filepath.Join(dir, "target")); err == nil {
		t.Fatal("--token-out wrote through a link")
	}
	if os.Geteuid() == 0 {
		other := file("other", "a-good-token-0123456789\n", 0o600)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := runCobra(t, "mcp", "--root", root, "--http", "127.0.0.1:0", "--token-file", other); err == nil || !strings.Contains(err.Error(), "owned by uid") {
			t.Fatalf("another user's token file: %v", err)
		}
	}
	// The control: a good file is accepted and served.
	s := startHTTP(t, "--root", root, "--http", "127.0.0.1:0", "--token-file", good)
	if _, err := connectHTTP(t, s.url, bearer{"a-good-token-0123456789", http.DefaultTransport}); err != nil {
		t.Fatalf("good token file: %v", err)
	}
}

// --http unix:/path serves on a 0600 socket in a 0700 directory, still
// with the token; a directory others may enter is refused.
func TestMCPHTTPUnixSocket(t *testing.T) {
	root := workspace(t)
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o755)
	if _, err := runCobra(t, "mcp", "--root", root, "--http", "unix:"+filepath.Join(open, "mcp.sock")); err == nil {
		t.Fatal("a socket in a directory others may enter was accepted")
	}
	sock := filepath.Join(base, "private", "mcp.sock")
	s := startHTTP(t, "--root", root, "--http", "unix:"+sock)
	fi, err := os.Lstat(sock)
	if err != nil || fi.Mode().Type() != os.ModeSocket || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v %v", fi.Mode(), err)
	}
	if di, err := os.Lstat(filepath.Dir(sock)); err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("socket dir: %v %v", di.Mode(), err)
	}
	b, _ := os.ReadFile(s.tokenPath)
	token := strings.TrimSpace(string(b))
	unixRT := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}
	if _, err := connectHTTP(t, "http://localhost/", bearer{"", unixRT}); err == nil {
		t.Fatal("connected over the socket without the token")
	}
	cs, err := connectHTTP(t, "http://localhost/", bearer{token, unixRT})
	if err != nil {
		t.Fatalf("over the socket with the token (control): %v", err)
	}
	if text, isErr := callText(t, cs, "list_files", map[string]any{"path": "."}); isErr {
		t.Fatalf("list_files: %s", text)
	}
	cs.Close()
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Dir(sock)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket's directory outlived the server: %v", err)
	}
}

// otherUser is what another local user would try against root's server:
// read the token file, then open a session with whatever it could get.
const otherUser = `
import socket, sys
tok = "none"
try:
    tok = open(sys.argv[1]).read().strip()
    print("READ")
except OSError as e:
    print("NOREAD", e.errno)
body = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}'
s = socket.create_connection(("127.0.0.1", int(sys.argv[2])), timeout=5)
s.sendall(b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + tok.encode() +
          b"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: " +
          str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
print(s.recv(64).split(b"\r\n")[0].decode())
`

// Another local user can neither read the generated token nor act without
// it: the attack that once let nobody write root's .git/config through a
// tokenless loopback server. The control is the same program run as the
// server's own user, which reads the token and opens a session.
func TestMCPHTTPOtherUserLockedOut(t *testing.T) {
	testenv.NeedRoot(t) // to run the other user
	root := workspace(t)
	s := startHTTP(t, "--root", root, "--http", "127.0.0.1:0")
	port := s.url[strings.LastIndexByte(s.url[:len(s.url)-1], ':')+1 : len(s.url)-1]
	run := func(asNobody bool) string {
		c := exec.Command("/usr/bin/python3", "-c", otherUser, s.tokenPath, port)
		c.Dir = "/"
		if asNobody {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("nobody=%v: %v\n%s", asNobody, err, out)
		}
		return string(out)
	}
	if out := run(false); !strings.Contains(out, "READ") || !strings.Contains(out, "HTTP/1.1 200") {
		t.Fatalf("control, as the server's user: %s", out)
	}
	if out := run(true); !strings.Contains(out, "NOREAD 13") || !strings.Contains(out, "HTTP/1.1 401") {
		t.Fatalf("as nobody: %s", out)
	}
}

// With --approver-token-file, the person's sessions are asked and the
// agent's are not: an agent that would answer its own question is never
// asked, and its write is refused; the person's same write is approved.
// The trail names sessions by label, never by id.
func TestMCPHTTPApproverToken(t *testing.T) {
	root := workspace(t)
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	agentTok, personTok := "agent-token-0123456789", "person-token-0123456789"
	os.WriteFile(filepath.Join(dir, "agent"), []byte(agentTok), 0o600)
	os.WriteFile(filepath.Join(dir, "person"), []byte(personTok), 0o600)
	trail := filepath.Join(dir, "audit.jsonl")
	s := startHTTP(t, "--root", root, "--http", "127.0.0.1:0", "--audit", trail,
		"--token-file", filepath.Join(dir, "agent"), "--approver-token-file", filepath.Join(dir, "person"))
	var asked atomic.Int32
	approve := &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked.Add(1)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"decision": "approve-once"}}, nil
	}}
	connect := func(tok string) *sdk.ClientSession {
		c := sdk.NewClient(&sdk.Implementation{Name: "cli-http-test", Version: "1"}, approve)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.url,
			HTTPClient: &http.Client{Transport: bearer{tok, http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	hook := map[string]any{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\necho owned\n"}
	agent := connect(agentTok)
	if text, isErr := callText(t, agent, "write_file", hook); !isErr || asked.Load() != 0 {
		t.Fatalf("the agent's session approved itself (asked %d):\n%s", asked.Load(), text)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err == nil {
		t.Fatal("the hook was written")
	}
	person := connect(personTok)
	if text, isErr := callText(t, person, "write_file", hook); isErr || asked.Load() != 1 {
		t.Fatalf("the person's session (asked %d):\n%s", asked.Load(), text)
	}
	ids := []string{agent.ID(), person.ID()}
	agent.Close()
	person.Close()
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(trail)
	if err != nil || strings.Count(string(b), "\n") != 2 {
		t.Fatalf("trail: %v\n%s", err, b)
	}
	for _, id := range ids {
		if id == "" || strings.Contains(string(b), id) {
			t.Fatalf("the trail holds session id %q:\n%s", id, b)
		}
	}
}

func TestAllowedHosts(t *testing.T) {
	for _, c := range []struct {
		addr  string
		extra []string
		want  string
	}{
		{"10.0.0.5:8080", []string{"build-box"}, "build-box,10.0.0.5"},
		{"0.0.0.0:8080", nil, ""},
		{"[::]:8080", []string{"a"}, "a"},
		{":8080", nil, ""},
		{"127.0.0.1:0", nil, "127.0.0.1"},
		{"unix:/run/x.sock", nil, ""},
	} {
		if got := strings.Join(allowedHosts(c.addr, c.extra), ","); got != c.want {
			t.Errorf("allowedHosts(%q, %q) = %q, want %q", c.addr, c.extra, got, c.want)
		}
	}
}

// The CLI wires the Host/Origin guard: a cross-origin or rebinding request
// is refused 403 even with the token; the allowed origin and a plain
// client (no Origin) are served.
func TestMCPHTTPOriginFlags(t *testing.T) {
	root := workspace(t)
	s := startHTTP(t, "--root", root, "--http", "127.0.0.1:0", "--allow-origin", "https://app.example")
	b, _ := os.ReadFile(s.tokenPath)
	token := strings.TrimSpace(string(b))
	post := func(host, origin string) int {
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		host, origin string
		want         int
	}{
		{"", "http://evil.example", http.StatusForbidden},
		{"evil.example", "", http.StatusForbidden},
		{"", "https://app.example", http.StatusOK},
		{"", "", http.StatusOK},
	} {
		if got := post(c.host, c.origin); got != c.want {
			t.Errorf("Host %q Origin %q: %d, want %d", c.host, c.origin, got, c.want)
		}
	}
	if _, err := runCobra(t, "mcp", "--root", root, "--http", "127.0.0.1:0", "--allow-origin", "*"); err == nil {
		t.Error("--allow-origin * accepted")
	}
}
