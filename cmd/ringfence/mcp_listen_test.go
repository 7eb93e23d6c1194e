package main

import (
	"strings"
	"testing"
)

func TestLoopbackByDefault(t *testing.T) {
	for in, want := range map[string]string{
		"8080": "127.0.0.1:8080", "0": "127.0.0.1:0", ":8080": ":8080",
		"127.0.0.1:9": "127.0.0.1:9", "0.0.0.0:8080": "0.0.0.0:8080", "[::]:1": "[::]:1",
		"unix:/run/x/mcp.sock": "unix:/run/x/mcp.sock", "localhost:1": "localhost:1", "": "",
	} {
		if got := loopbackByDefault(in); got != want {
			t.Errorf("loopbackByDefault(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMCPHTTPBindsLoopbackByDefault: --http with a port alone serves on
// 127.0.0.1, with the generated token (which a non-loopback listener
// would refuse).
func TestMCPHTTPBindsLoopbackByDefault(t *testing.T) {
	root := workspace(t)
	s := startHTTP(t, "--root", root, "--http", "0")
	if !strings.HasPrefix(s.url, "http://127.0.0.1:") {
		t.Fatalf("serving on %s, want 127.0.0.1", s.url)
	}
	// Control: every interface, named (as 0.0.0.0 or Go's empty host),
	// still needs a token file (TestMCPRefusesPublicAddressWithoutToken).
}
