package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence"
)

func TestNetworkFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // in stdout (code 0) or stderr
	}{
		{"allow implies domains", []string{"--allow-domain", "@go", "--deny-domain", "sum.golang.org"}, 0, "domains (@go), except (sum.golang.org)"},
		{"explicit domains with ask", []string{"--network", "domains", "--allow-domain", "*.github.com", "--network-ask"}, 0, "domains (*.github.com), others asked"},
		{"over-broad", []string{"--allow-domain", "*.co.uk"}, exitUsage, `--allow-domain: invalid network rule "*.co.uk"`},
		{"star in deny", []string{"--allow-domain", "a.org", "--deny-domain", "*"}, exitUsage, `--deny-domain: invalid network rule "*"`},
		{"crlf", []string{"--allow-domain", "a.org\r\nHost: b"}, exitUsage, "--allow-domain"},
		{"domains without rules", []string{"--network", "domains"}, exitUsage, "at least one --allow-domain"},
		{"rules with another mode", []string{"--network", "loopback", "--allow-domain", "a.org"}, exitUsage, "need --network domains"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := workspace(t)
			empty := filepath.Join(t.TempDir(), "empty.toml")
			if err := os.WriteFile(empty, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := cli(t, dir, "", append([]string{"policy", "explain", "--policy", empty}, tc.args...)...)
			got := out
			if tc.code != 0 {
				got = errOut
			}
			if code != tc.code || !strings.Contains(got, tc.want) {
				t.Fatalf("exit %d (want %d)\nstdout: %s\nstderr: %s\nwant %q", code, tc.code, out, errOut, tc.want)
			}
		})
	}
}

// A refused host end to end through `ringfence run --json`: the result is
// denied, lists the decision, and the narration says what to ask for —
// the same under the linux and bwrap backends (one proxy code path). The
// host is refused before any lookup, so nothing leaves this machine.
func TestRunDomainsDenialNarrated(t *testing.T) {
	for _, backend := range []string{"linux", "bwrap"} {
		t.Run(backend, func(t *testing.T) {
			needBackend(t, backend)
			dir := workspace(t)
			code, res := runJSON(t, dir, "--backend", backend, "--allow-domain", "proxy.golang.org", "--allow-domain", "*.npmjs.org",
				"--", "curl", "-fsS", "--max-time", "10", "https://pypi.org/simple/")
			if code == 0 || res.Kind != ringfence.KindDenied {
				t.Fatalf("exit %d, kind %s: %+v", code, res.Kind, res)
			}
			want := "The sandbox blocked a connection to pypi.org:443: it is not in the allowed domains (*.npmjs.org, proxy.golang.org). If it is needed, allow it with --allow-domain pypi.org."
			if res.Narration != want {
				t.Fatalf("narration %q\nwant      %q", res.Narration, want)
			}
			if len(res.Network) != 1 || res.Network[0].Host != "pypi.org" || res.Network[0].Verdict != "deny" || res.Network[0].Reason != "blocked-by-allowlist" || res.Network[0].Via != "connect" {
				t.Fatalf("decisions %+v", res.Network)
			}
			if res.Enforcement.Network != "full" {
				t.Fatalf("enforcement %+v", res.Enforcement)
			}
		})
	}
}
