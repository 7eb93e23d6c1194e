//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// An audit trail in a directory of the workspace cannot be replaced by
// renaming that directory away and writing a forged trail under the old
// name (bwrap carries a read-only bind along with a renamed parent), on
// every backend. The unconfined control shows the forgery works.
func TestMCPAuditTrailCannotBeRenamedAway(t *testing.T) {
	for _, backend := range []string{"linux", "bwrap", "landlock", ""} {
		name := backend
		if name == "" {
			name = "unconfined-control"
		}
		t.Run(name, func(t *testing.T) {
			args := []string{"--mode", "danger-full-access"}
			if backend != "" {
				needBackend(t, backend)
				args = []string{"--backend", backend}
			}
			root := workspace(t)
			trail := filepath.Join(root, "logs", "audit.jsonl")
			must(t, os.MkdirAll(filepath.Dir(trail), 0o755))
			ctx, cs, stop := startMCP(t, append(args, "--root", root, "--audit", trail)...)
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_command", Arguments: map[string]any{
				"command": `mv logs logs.old && mkdir logs && echo '{"time":"forged"}' > logs/audit.jsonl`}})
			if err != nil {
				t.Fatal(err)
			}
			_ = stop()
			b, _ := os.ReadFile(trail)
			// A genuine record quotes the command (\"time\"); only the
			// forgery holds this line as it is.
			forged := strings.Contains(string(b), `{"time":"forged"}`)
			if backend != "" && forged {
				t.Fatalf("the trail was replaced (run_command error: %v):\n%s", r.IsError, b)
			}
			if backend == "" && !forged {
				t.Fatalf("control: the forgery did not work unconfined:\n%s", b)
			}
		})
	}
}

// TestMCPAuditTrailRenameNonRoot reruns the rename attack as an
// unprivileged user.
func TestMCPAuditTrailRenameNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestMCPAuditTrailCannotBeRenamedAway$")
}
