//go:build linux

package mcp

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/tools"
)

// selfApproval is what a command that wants to approve its own request
// would do: reach the server (here with the person's token, as if it had
// leaked) and open a session of its own. It prints the HTTP status line.
const selfApproval = `
import socket, sys
body = b'%s'
req = (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
       b"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
       b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
try:
    s = socket.create_connection(("127.0.0.1", %s), timeout=5)
    s.sendall(req)
    print(s.recv(64).split(b"\r\n")[0].decode())
except OSError as e:
    print("UNREACHABLE", e)
    sys.exit(3)
`

// A command run by the server, in network mode deny or loopback, cannot
// reach the server at all: it has its own network namespace, so the
// server's loopback is not its loopback, and it cannot open a session to
// approve its own request. The control runs the same program outside the
// sandbox, where it reaches the server and opens a session. (Under
// allow-all it can reach the server: there the token, unreadable to it, is
// the wall — see cmd/ringfence TestMCPHTTPTokenHiddenFromSandbox.)
func TestSandboxedCommandCannotReachServer(t *testing.T) {
	for _, net := range []policy.Network{
		{Mode: policy.NetDeny},
		{Mode: policy.NetLoopback},
	} {
		t.Run(fmt.Sprint(net.Mode), func(t *testing.T) {
			e := newEnvNet(t, tools.Options{GateTimeout: 10 * time.Second}, net)
			e.needBackend()
			var hits atomic.Int32
			h := e.handler(agentCred, approverCred)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			port := ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
			code := fmt.Sprintf(selfApproval, initBody, approverCred.Token, port)

			out, err := exec.Command("python3", "-c", code).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "HTTP/1.1 200") || hits.Load() == 0 {
				t.Fatalf("control: unconfined, the program did not reach the server: %v %q (%d requests)", err, out, hits.Load())
			}
			hits.Store(0)

			yes := &elicitor{}
			yes.set("accept", choiceSession, "")
			cs, err := httpClient(t, ts.URL, approverCred.Token, yes)
			if err != nil {
				t.Fatal(err)
			}
			loadSchemas(t, cs)    // the test's own listing, before counting
			before := hits.Load() // the person's own client's requests
			r, st := call(t, cs, "run_code", map[string]any{"language": "python", "code": code})
			t.Logf("inside: %s", text(r))
			if strings.Contains(text(r), "HTTP/1.1") || !strings.Contains(text(r), "UNREACHABLE") {
				t.Fatalf("the sandboxed program reached the server (%s):\n%s", st.Outcome.Kind, text(r))
			}
			// Only the person's client spoke: its call and its session's
			// own traffic, nothing from inside the sandbox.
			if got := hits.Load() - before; got > 2 {
				t.Fatalf("%d requests arrived during the call", got)
			}

			// run_command with curl, from the agent's session: the network
			// capability needs a person, whom this session cannot ask, so
			// curl never starts, and nothing arrives.
			agent, err := httpClient(t, ts.URL, agentCred.Token, yes)
			if err != nil {
				t.Fatal(err)
			}
			loadSchemas(t, agent)
			asked := yes.count()
			before = hits.Load()
			curl := "curl -sS -m 5 -H 'Authorization: Bearer " + approverCred.Token + "' -H 'Content-Type: application/json' " +
				"-H 'Accept: application/json, text/event-stream' -d '" + initBody + "' " + ts.URL
			r, st = call(t, agent, "run_command", map[string]any{"command": curl})
			if st.Outcome.Kind == "ok" || strings.Contains(text(r), "HTTP/1.1") || yes.count() != asked {
				t.Fatalf("curl from the agent's session: %s, asked %d:\n%s", st.Outcome.Kind, yes.count()-asked, text(r))
			}
			if got := hits.Load() - before; got > 1 {
				t.Fatalf("%d requests arrived during the curl call", got)
			}
		})
	}
}

// Under allow-all the command shares the host's network and does reach
// the server; without the token (which it cannot read: the CLI denies the
// token files to the sandbox) every request is refused 401.
func TestSandboxedCommandAllowAllNeedsToken(t *testing.T) {
	e := newEnvNet(t, tools.Options{}, policy.Network{Mode: policy.NetAllowAll})
	e.needBackend()
	ts := httptest.NewServer(e.handler(agentCred, approverCred))
	t.Cleanup(ts.Close)
	port := ts.URL[strings.LastIndexByte(ts.URL, ':')+1:]
	code := fmt.Sprintf(selfApproval, initBody, "guessed-token-0123456789", port)
	cs, err := httpClient(t, ts.URL, agentCred.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := call(t, cs, "run_code", map[string]any{"language": "python", "code": code})
	if !strings.Contains(text(r), "HTTP/1.1 401") {
		t.Fatalf("allow-all, no token:\n%s", text(r))
	}
}

// The same, as an unprivileged user.
func TestSandboxedCommandCannotReachServerNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestSandboxedCommandCannotReachServer|TestSandboxedCommandAllowAllNeedsToken)$")
}
