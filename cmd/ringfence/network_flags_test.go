package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
