// Command mcpread times read_file through MCP on ringfence's server and on
// the official filesystem server (@modelcontextprotocol/server-filesystem,
// its read_text_file), in one run, with one client (the Go SDK's), over
// stdio: files of 4 KiB and 1 MiB, p50 and p99, and the ratio of the p50s.
// bench/mcp.sh runs it.
//
//	mcpread -ringfence 'ringfence mcp' -reference 'node …/dist/index.js' [-n 500]
//
// Both servers must return the whole file: ringfence numbers the lines
// (cat -n), the reference does not, so each answer is checked for the
// file's last line before it counts.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/benchkit"
)

func main() {
	rf := flag.String("ringfence", "", "ringfence's server command line (--root ROOT is appended)")
	ref := flag.String("reference", "", "the reference server's command line (ROOT is appended)")
	n := flag.Int("n", 500, "calls per file per server")
	flag.Parse()
	if *rf == "" || *ref == "" {
		fmt.Fprintln(os.Stderr, "usage: mcpread -ringfence CMD -reference CMD [-n N]")
		os.Exit(2)
	}
	if err := run(*rf, *ref, *n); err != nil {
		fmt.Fprintln(os.Stderr, "mcpread:", err)
		os.Exit(1)
	}
}

type file struct {
	name string
	size int
	last string // the file's last line, which every answer must hold
}

func run(rf, ref string, n int) error {
	root, cleanup, err := benchkit.Workspace("mcpread")
	if err != nil {
		return err
	}
	defer cleanup()
	var files []file
	for _, size := range []int{4 << 10, 1 << 20} {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "line %07d %s\n", i, strings.Repeat("x", 50))
		}
		body := b.String()[:size-1] + "\n"
		lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		f := file{name: fmt.Sprintf("%dk.txt", size>>10), size: size, last: lines[len(lines)-1]}
		if err := os.WriteFile(filepath.Join(root, f.name), []byte(body), 0o644); err != nil {
			return err
		}
		files = append(files, f)
	}
	ctx := context.Background()
	type server struct {
		label, tool string
		argv        []string
		path        func(f file) string
	}
	servers := []server{
		{"ringfence", "read_file", append(strings.Fields(rf), "--root", root, "--max-read-bytes", "2097152"),
			func(f file) string { return f.name }},
		{"reference", "read_text_file", append(strings.Fields(ref), root),
			func(f file) string { return filepath.Join(root, f.name) }},
	}
	p50 := map[string]time.Duration{}
	fmt.Printf("%-10s %-9s %10s %10s\n", "server", "file", "p50", "p99")
	for _, s := range servers {
		cs, _, err := benchkit.Connect(ctx, "mcpread", s.argv, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", s.label, err)
		}
		for _, f := range files {
			args := map[string]any{"path": s.path(f)}
			d, err := benchkit.Measure(n, func() error {
				r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: s.tool, Arguments: args})
				if err != nil {
					return err
				}
				t, ok := r.Content[0].(*sdk.TextContent)
				if r.IsError || !ok || !strings.Contains(t.Text[max(0, len(t.Text)-200):], f.last) {
					return errors.New(s.label + ": " + f.name + ": not the whole file")
				}
				return nil
			})
			if err != nil {
				cs.Close()
				return err
			}
			p50[s.label+f.name] = d[0]
			fmt.Printf("%-10s %-9s %10s %10s\n", s.label, f.name, d[0], d[1])
		}
		cs.Close()
	}
	for _, f := range files {
		fmt.Printf("read_file %-9s p50 ratio ringfence/reference %.2f (target ≤ 1.00)\n", f.name,
			float64(p50["ringfence"+f.name])/float64(p50["reference"+f.name]))
	}
	return nil
}
