package outcome

import (
	"strings"
	"testing"
)

// Under the domains network without a network namespace (landlock), a
// program that ignored the proxy variables fails with the sandbox's EACCES
// on its connect, or with no name resolution: a denial, narrated as "use
// the proxy variables", not as a deny-mode sandbox.
func TestClassifyProxyOnly(t *testing.T) {
	for _, stderr := range []string{
		"Error: connect EACCES 198.51.100.10:80\n",                                                      // node
		"dial tcp 198.51.100.10:80: connect: permission denied\n",                                       // Go
		"curl: (7) Failed to connect to 198.51.100.10 port 80 after 0 ms: Couldn't connect to server\n", // curl --noproxy
		"socket.gaierror: [Errno -3] Temporary failure in name resolution\n",                            // Python, no DNS
	} {
		ev := Evidence{ExitCode: code(1), Stderr: []byte(stderr), StatusChannel: true, Status: started(), Network: NetworkProxyOnly}
		r := ClassifyExec(ev, landlockDialect)
		if r.Kind != ExecDenied || r.Network != NetworkProxyOnly || len(r.Violations) != 1 || r.Violations[0].Reason != ReasonNetworkDenied {
			t.Fatalf("%q: %+v", stderr, r)
		}
		n := Narrate(FromExec(r, ev, ExecLimits{}, goldenContext), goldenContext)
		if !strings.Contains(n, "ignoring them") || !strings.Contains(n, "HTTP_PROXY") || strings.Contains(n, "network mode deny") {
			t.Fatalf("narration %q", n)
		}
	}
}
