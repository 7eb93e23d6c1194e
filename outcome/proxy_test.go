package outcome

import (
	"strings"
	"testing"
)

func TestProxyBlockedNarration(t *testing.T) {
	zero := 0
	allowed := []string{"proxy.golang.org", "*.npmjs.org"}
	for _, tc := range []struct {
		name   string
		blocks []NetBlock
		want   string
	}{
		{"allowlist", []NetBlock{{Host: "pypi.org", Port: 443, Reason: "blocked-by-allowlist"}},
			"The sandbox blocked a connection to pypi.org:443: it is not in the allowed domains (proxy.golang.org, *.npmjs.org). Ask the user to allow it."},
		{"denylist with reason", []NetBlock{{Host: "pastebin.com", Port: 443, Rule: "pastebin.com", Reason: "blocked-by-denylist", Why: "exfiltration risk"}},
			"The sandbox blocked a connection to pastebin.com:443: the policy denies it (rule pastebin.com): exfiltration risk. Do not try to reach it another way; ask the user if it is needed."},
		{"private and more", []NetBlock{{Host: "meta.test", Port: 80, Reason: "private-address"}, {Host: "::1", Port: 80, Reason: "private-address"}, {Host: "evil.test", Port: 443, Reason: "sni-mismatch"}},
			"The sandbox blocked a connection to meta.test:80: the name leads to a private or local address, which the sandbox never connects to. Use a public host. It also blocked [::1]:80 (private-address), evil.test:443 (sni-mismatch)."},
		{"hostile host", []NetBlock{{Host: "a\nb\x1b[31m", Port: 1, Reason: "invalid-destination"}},
			""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := Evidence{ExitCode: &zero, ProxyEvidence: ProxyEvidence{Proxy: tc.blocks, ProxyAllowed: allowed}}
			r := ClassifyExec(ev, Dialect{Backend: "linux"})
			if r.Kind != ExecDenied || len(r.Violations) != len(tc.blocks) || r.Violations[0].Reason != ReasonProxy {
				t.Fatalf("classified %+v", r)
			}
			o := FromExec(r, ev, ExecLimits{}, goldenContext)
			text := Narrate(o, goldenContext)
			if tc.want != "" && text != tc.want {
				t.Fatalf("got  %s\nwant %s", text, tc.want)
			}
			if strings.ContainsAny(text, "\n\x1b") {
				t.Fatalf("control bytes in %q", text)
			}
		})
	}
}

// Without refusals a successful run stays a success.
func TestNoProxyBlocksNoDenial(t *testing.T) {
	zero := 0
	if r := ClassifyExec(Evidence{ExitCode: &zero}, Dialect{Backend: "linux"}); r.Kind != ExecSuccess {
		t.Fatalf("%+v", r)
	}
}
