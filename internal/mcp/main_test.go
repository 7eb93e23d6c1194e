package mcp

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/internal/entry"
	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/tools"
)

// serveEnv, when set to a workspace root, makes the test binary a stdio
// MCP server over that root (the stdio end-to-end tests re-execute it).
const serveEnv = "RINGFENCE_MCP_TEST_SERVE"

// TestMain dispatches the sandbox's re-executed entry points, then the
// stdio server role, then the tests.
func TestMain(m *testing.M) {
	entry.Role(serveEnv, serveForTest)
	entry.Tests(m)
}

func serveForTest(root string) int {
	sb, err := sandbox.New(sandbox.Config{Root: root, MountPath: "/workspace", Defaults: policy.Defaults{
		Mode: policy.WorkspaceWrite, Baseline: policy.Read,
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer sb.Close()
	var aw *audit.Writer
	if p := os.Getenv(serveEnv + "_AUDIT"); p != "" {
		if aw, err = audit.Open(p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		defer aw.Close()
	}
	s := NewServer(Config{Sandbox: sb, Audit: aw, Version: "test", Tools: tools.Options{}})
	if err := s.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
