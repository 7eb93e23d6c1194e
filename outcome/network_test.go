package outcome

import (
	"strings"
	"testing"
)

// capturedNet are stderr lines the real tools printed inside the sandbox
// on this project's hosts (ringfence run --network deny|loopback), with
// what each must decide. want* is the target ("-" when not a refusal).
var capturedNet = []struct {
	tool, line       string
	deny, loopback   string
	denyOK, loopOK   bool
	commandsOwnWords bool // a line that must never count, in any mode
}{
	{tool: "curl", line: "curl: (6) Could not resolve host: example.com", deny: "example.com", denyOK: true, loopback: "example.com", loopOK: true},
	{tool: "curl", line: "curl: (7) Failed to connect to 1.1.1.1 port 80 after 0 ms: Couldn't connect to server", deny: "1.1.1.1", denyOK: true, loopback: "1.1.1.1", loopOK: true},
	{tool: "curl", line: "curl: (7) Failed to connect to 127.0.0.1 port 9 after 0 ms: Couldn't connect to server", deny: "127.0.0.1", denyOK: true},
	{tool: "curl", line: "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Could not connect to server", deny: "localhost", denyOK: true},
	{tool: "git", line: "fatal: unable to access 'https://github.com/git/git/': Could not resolve host: github.com", deny: "github.com", denyOK: true, loopback: "github.com", loopOK: true},
	{tool: "go", line: `Get "http://example.com/": dial tcp: lookup example.com on 10.255.255.53:53: dial udp 10.255.255.53:53: connect: network is unreachable`, deny: "example.com", denyOK: true, loopback: "example.com", loopOK: true},
	{tool: "go", line: "dial tcp 1.1.1.1:80: connect: network is unreachable", deny: "1.1.1.1:80", denyOK: true, loopback: "1.1.1.1:80", loopOK: true},
	{tool: "go", line: `Get "http://127.0.0.1:9/": dial tcp 127.0.0.1:9: connect: network is unreachable`, deny: "127.0.0.1:9", denyOK: true},
	{tool: "go", line: "dial tcp 127.0.0.1:9: connect: connection refused", deny: "127.0.0.1:9", denyOK: true},
	{tool: "go", line: "dial tcp [::1]:9: connect: connection refused", deny: "[::1]:9", denyOK: true},
	{tool: "go", line: "go: golang.org/x/text@v0.3.0: Get \"https://proxy.golang.org/golang.org/x/text/@v/v0.3.0.info\": dial tcp: lookup proxy.golang.org on 127.0.0.53:53: read udp 127.0.0.1:40000->127.0.0.53:53: read: connection refused", deny: "proxy.golang.org", denyOK: true, loopback: "proxy.golang.org", loopOK: true},
	{tool: "go", line: "lookup example.invalid: no such host", deny: "example.invalid", denyOK: true, loopback: "example.invalid", loopOK: true},
	{tool: "python", line: "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>", denyOK: true, loopOK: true},
	{tool: "python", line: "socket.gaierror: [Errno -2] Name or service not known", denyOK: true, loopOK: true},
	{tool: "python", line: "OSError: [Errno 101] Network is unreachable", denyOK: true, loopOK: true},
	{tool: "python", line: "ConnectionRefusedError: [Errno 111] Connection refused"},
	{tool: "node", line: "Error: getaddrinfo EAI_AGAIN example.com", deny: "example.com", denyOK: true, loopback: "example.com", loopOK: true},
	{tool: "node", line: "Error: getaddrinfo ENOTFOUND registry.example", deny: "registry.example", denyOK: true, loopback: "registry.example", loopOK: true},
	{tool: "node", line: "Error: connect ENETUNREACH 1.1.1.1:80 - Local (0.0.0.0:0)", deny: "1.1.1.1:80", denyOK: true, loopback: "1.1.1.1:80", loopOK: true},
	{tool: "node", line: "Error: connect ENETUNREACH 127.0.0.1:9 - Local (0.0.0.0:0)", deny: "127.0.0.1:9", denyOK: true},
	{tool: "node", line: "Error: connect ECONNREFUSED 127.0.0.1:9"},
	{tool: "node (landlock)", line: "connect EACCES 1.1.1.1:80 - Local (undefined:undefined)", deny: "1.1.1.1:80", denyOK: true, loopback: "1.1.1.1:80", loopOK: true},
	{tool: "python (landlock)", line: "urllib.error.URLError: <urlopen error [Errno 13] Permission denied>", denyOK: true, loopOK: true},
	{tool: "go (landlock)", line: "dial tcp 1.1.1.1:80: connect: permission denied", deny: "1.1.1.1:80", denyOK: true, loopback: "1.1.1.1:80", loopOK: true},
	{tool: "npm", line: "npm error request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org", deny: "registry.npmjs.org", denyOK: true, loopback: "registry.npmjs.org", loopOK: true},
	{tool: "pip", line: "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7fdc749378d0>: Failed to establish a new connection: [Errno -3] Temporary failure in name resolution')': /simple/left-pad/", denyOK: true, loopOK: true},
	{tool: "ssh", line: "ssh: Could not resolve hostname github.com: Temporary failure in name resolution", deny: "github.com", denyOK: true, loopback: "github.com", loopOK: true},
	{tool: "wget", line: "wget: unable to resolve host address ‘example.com’", deny: "example.com", denyOK: true, loopback: "example.com", loopOK: true},
	// A command's own words that merely mention the network.
	{tool: "own", line: "cache lookup miss for key abc", commandsOwnWords: true},
	{tool: "own", line: "dial tcp failed in test helper", commandsOwnWords: true},
	{tool: "own", line: "dial unix /run/app.sock: connect: connection refused", commandsOwnWords: true},
	{tool: "own", line: "retrying after connection refused", commandsOwnWords: true},
}

func TestNetworkDialectsCaptured(t *testing.T) {
	for _, c := range capturedNet {
		lower := asciiLower(c.line)
		for _, m := range []struct {
			mode   string
			target string
			ok     bool
		}{{NetworkDeny, c.deny, c.denyOK}, {NetworkLoopback, c.loopback, c.loopOK}, {"", "", false}, {"allow-all", "", false}} {
			if c.commandsOwnWords {
				m.target, m.ok = "", false
			}
			target, ok := netRefusal(c.line, lower, m.mode)
			if ok != m.ok || (ok && target != m.target) {
				t.Errorf("%s under %q: %q → (%q, %v), want (%q, %v)", c.tool, m.mode, c.line, target, ok, m.target, m.ok)
			}
		}
	}
}

// ClassifyExec: a network refusal is a denial with a network violation,
// only under a mode that denied; under allow-all the same text is the
// command's own failure.
func TestClassifyNetworkDenied(t *testing.T) {
	stderr := []byte("Traceback (most recent call last):\n  File \"x.py\", line 1\nsocket.gaierror: [Errno -3] Temporary failure in name resolution\n")
	ev := Evidence{ExitCode: code(1), Stderr: stderr, StatusChannel: true, Status: started(), Network: NetworkDeny}
	r := ClassifyExec(ev, linuxDialect)
	if r.Kind != ExecDenied || r.Network != NetworkDeny || len(r.Violations) != 1 || r.Violations[0].Reason != ReasonNetworkDenied {
		t.Fatalf("deny: %+v", r)
	}
	o := FromExec(r, ev, ExecLimits{}, goldenContext)
	if o.Kind != SandboxViolation || o.Network != NetworkDeny {
		t.Fatalf("outcome %+v", o)
	}
	if n := Narrate(o, goldenContext); !strings.Contains(n, "network mode deny") || !strings.Contains(n, "ask the user") || strings.Contains(n, "writable roots") {
		t.Fatalf("narration %q", n)
	}
	ev.Network = ""
	if r := ClassifyExec(ev, linuxDialect); r.Kind != ExecCommandFailure || len(r.Violations) != 0 {
		t.Fatalf("allow-all: %+v", r)
	}
	// Loopback: a refused loopback connection is the command's own.
	ev.Network, ev.Stderr = NetworkLoopback, []byte("Error: connect ECONNREFUSED 127.0.0.1:3000\n")
	if r := ClassifyExec(ev, linuxDialect); r.Kind != ExecCommandFailure {
		t.Fatalf("loopback refused: %+v", r)
	}
	// A file denial and a network denial in one run are both recorded.
	ev.Network, ev.Stderr = NetworkDeny, []byte("touch: cannot touch '/etc/x': Read-only file system\ncurl: (6) Could not resolve host: example.com\n")
	r = ClassifyExec(ev, linuxDialect)
	if r.Kind != ExecDenied || len(r.Violations) != 2 || r.Violations[1].Target != "example.com" || r.Violations[0].Path != "/etc/x" {
		t.Fatalf("both: %+v", r)
	}
	// Landlock's EACCES on a connect is told once, as the network's.
	ev.Stderr = []byte("urllib.error.URLError: <urlopen error [Errno 13] Permission denied>\n")
	r = ClassifyExec(ev, landlockDialect)
	if r.Kind != ExecDenied || len(r.Violations) != 1 || r.Violations[0].Reason != ReasonNetworkDenied {
		t.Fatalf("landlock: %+v", r)
	}
	// The same host failing a hundred times is one violation.
	ev.Stderr = []byte(strings.Repeat("curl: (6) Could not resolve host: example.com\n", 100))
	if r := ClassifyExec(ev, linuxDialect); len(r.Violations) != 1 {
		t.Fatalf("repeated: %d violations", len(r.Violations))
	}
}

func FuzzNetRefusal(f *testing.F) {
	for _, c := range capturedNet {
		f.Add(c.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		lower := asciiLower(line)
		dt, dok := netRefusal(line, lower, NetworkDeny)
		lt, lok := netRefusal(line, lower, NetworkLoopback)
		if _, ok := netRefusal(line, lower, ""); ok {
			t.Fatal("a refusal with no network mode denying")
		}
		if lok && !dok {
			t.Fatalf("refused under loopback but not under deny: %q", line)
		}
		for _, tg := range []string{dt, lt} {
			if tg != "" && !strings.Contains(line, tg) {
				t.Fatalf("target %q is not in the line %q", tg, line)
			}
		}
	})
}
