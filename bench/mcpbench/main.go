// Command mcpbench measures what the MCP layer adds: the round trip of
// read_file (4 KiB) and run_command (`true`) through a stdio MCP server
// versus the same call through the Go API (tools.Set.Call), p50 and p99,
// and the server's idle RSS. bench/mcp.sh runs it.
//
//	mcpbench [-n 2000] [-cmd-n 200] [-server 'ringfence mcp']
//
// Without -server it serves itself (`mcpbench serve ROOT`), which is the
// same internal/mcp server ringfence mcp runs. MCPBENCH_CPUPROFILE=FILE
// writes CPU profiles of the driver (FILE) and the server (FILE.server).
//
// It lives under bench/, not internal/: like cmd/ringfence it is a main on
// top of the public facade, and no internal package imports the root.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/benchkit"
	rfmcp "github.com/ringfence/ringfence/internal/mcp"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/tools"
)

func main() {
	if ringfence.MaybeInternal() {
		return
	}
	serving := len(os.Args) == 3 && os.Args[1] == "serve"
	if p := os.Getenv("MCPBENCH_CPUPROFILE"); p != "" {
		if serving {
			p += ".server"
		}
		f, err := os.Create(p)
		if err == nil {
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	if serving {
		code := serve(os.Args[2])
		pprof.StopCPUProfile()
		os.Exit(code)
	}
	n := flag.Int("n", 2000, "read_file calls per side")
	cn := flag.Int("cmd-n", 200, "run_command calls per side")
	server := flag.String("server", "", "the server command line (default: this binary's serve mode); --root ROOT is appended")
	flag.Parse()
	if err := bench(*n, *cn, *server); err != nil {
		fmt.Fprintln(os.Stderr, "mcpbench:", err)
		os.Exit(1)
	}
}

func sandbox(root string) (*ringfence.Local, error) {
	return ringfence.New(ringfence.Config{Root: root, MountPath: outcome.DefaultMountPath}) // the zero Defaults: the agent profile
}

func serve(root string) int {
	sb, err := sandbox(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer sb.Close()
	if err := rfmcp.NewServer(rfmcp.Config{Sandbox: sb}).ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		return 1
	}
	return 0
}

type op struct {
	name string
	args string
	n    int
}

func bench(n, cn int, server string) error {
	root, cleanup, err := benchkit.Workspace("mcpbench")
	if err != nil {
		return err
	}
	defer cleanup()
	line := strings.Repeat("x", 63) + "\n"
	if err := os.WriteFile(filepath.Join(root, "4k.txt"), []byte(strings.Repeat(line, 64)), 0o644); err != nil {
		return err
	}
	ops := []op{{"read_file", `{"path":"4k.txt"}`, n}, {"run_command", `{"argv":["true"]}`, cn}}

	sb, err := sandbox(root)
	if err != nil {
		return err
	}
	defer sb.Close()
	set := tools.New(sb, tools.Options{})
	ctx := context.Background()

	var argv []string
	if server == "" {
		argv = []string{os.Args[0], "serve", root}
	} else {
		argv = append(strings.Fields(server), "--root", root)
	}
	cs, cmd, err := benchkit.Connect(ctx, "mcpbench", argv, os.Stderr)
	if err != nil {
		return err
	}
	defer cs.Close()
	time.Sleep(500 * time.Millisecond)
	idle := rss(cmd.Process.Pid)

	fmt.Printf("backend %s; server %s\n", sb.Backend(), strings.Join(argv[:min(2, len(argv))], " "))
	fmt.Printf("%-12s %-6s %10s %10s\n", "op", "path", "p50", "p99")
	for _, o := range ops {
		api, err := benchkit.Measure(o.n, func() error {
			if r := set.Call(ctx, o.name, json.RawMessage(o.args)); r.IsError {
				return fmt.Errorf("%s: %s", o.name, r.Outcome.Kind)
			}
			return nil
		})
		if err != nil {
			return err
		}
		var args map[string]any
		_ = json.Unmarshal([]byte(o.args), &args)
		wire, err := benchkit.Measure(o.n, func() error {
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: o.name, Arguments: args})
			if err == nil && r.IsError {
				err = fmt.Errorf("%s: tool error", o.name)
			}
			return err
		})
		if err != nil {
			return err
		}
		fmt.Printf("%-12s %-6s %10s %10s\n", o.name, "go-api", api[0], api[1])
		fmt.Printf("%-12s %-6s %10s %10s\n", o.name, "stdio", wire[0], wire[1])
		fmt.Printf("%-12s %-6s %10s\n", o.name, "added", (wire[0] - api[0]).Round(time.Microsecond))
	}
	ping, err := benchkit.Measure(n, func() error { return cs.Ping(ctx, nil) })
	if err != nil {
		return err
	}
	fmt.Printf("%-12s %-6s %10s %10s   (the SDK's JSON-RPC floor over the pipe)\n", "ping", "stdio", ping[0], ping[1])
	fmt.Printf("idle server RSS: %.1f MiB (after a 500 ms idle, before any call)\n", float64(idle)/(1<<20))
	return nil
}

// rss is the resident set of pid in bytes (0 when unknown).
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			var kb int64
			fmt.Sscan(f[1], &kb)
			return kb << 10
		}
	}
	return 0
}
