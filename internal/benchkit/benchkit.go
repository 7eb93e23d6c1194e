// Package benchkit is what the MCP benchmark clients share (bench/mcpread,
// internal/mcp/cmd/mcpbench): a scratch workspace, a stdio client
// connected to a server command, and the p50/p99 timing loop, so the
// numbers they print are measured the same way.
package benchkit

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Workspace makes a fresh directory (its real path, links resolved, as
// servers report paths) and returns it with its removal.
func Workspace(prefix string) (string, func(), error) {
	root, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(root) }
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return real, cleanup, nil
}

// Connect starts argv as a stdio MCP server (its stderr to stderr, nil
// discards) and connects a client named name to it. The caller closes the
// session; cmd is the running server (for its pid).
func Connect(ctx context.Context, name string, argv []string, stderr io.Writer) (*sdk.ClientSession, *exec.Cmd, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = stderr
	c := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, nil, err
	}
	return cs, cmd, nil
}

// Measure runs f n times (after a tenth as warm-up) and returns p50 and
// p99; the first error stops it.
func Measure(n int, f func() error) ([2]time.Duration, error) {
	for range max(n/10, 1) {
		if err := f(); err != nil {
			return [2]time.Duration{}, err
		}
	}
	d := make([]time.Duration, max(n, 1))
	for i := range d {
		start := time.Now()
		if err := f(); err != nil {
			return [2]time.Duration{}, err
		}
		d[i] = time.Since(start)
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return [2]time.Duration{d[len(d)/2].Round(time.Microsecond), d[len(d)*99/100].Round(time.Microsecond)}, nil
}
