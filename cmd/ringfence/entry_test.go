package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/entry"
)

// The ringfence binary's hidden entry points are exactly the three a
// confining run re-executes it as, and each is reached through the one
// table: a bare `__reap` (not started by Run) refuses with 125 rather
// than falling through to the CLI, which would say "unknown command".
func TestEntryPoints(t *testing.T) {
	if got := strings.Join(entry.Names(), " "); got != "__confine __exec __reap" {
		t.Fatalf("entry points %q, want __confine __exec __reap", got)
	}
	cmd := exec.Command(os.Args[0], "__reap", "0", "/bin/true", "true")
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 || strings.Contains(string(out), "unknown command") {
		t.Fatalf("bare __reap: %v %q", err, out)
	}
}
