// Command wsbench runs one workspace operation over a directory and prints
// how many results it found, for bench/files.sh to time beside ripgrep,
// grep and find. Every bound is lifted so the counts are comparable, and
// the policy is the agent's (policy.AgentDefaults over DIR).
//
//	wsbench grep [-i] PATTERN DIR
//	wsbench glob PATTERN DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/policy"
)

func main() {
	ci := flag.Bool("i", false, "case-insensitive grep")
	ignore := flag.Bool("ignore", false, "honour .gitignore")
	flag.Parse()
	if flag.NArg() != 3 {
		fmt.Fprintln(os.Stderr, "usage: wsbench [-i] grep|glob PATTERN DIR")
		os.Exit(2)
	}
	n, err := run(flag.Arg(0), flag.Arg(1), flag.Arg(2), *ci, !*ignore)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wsbench:", err)
		os.Exit(1)
	}
	fmt.Println(n)
}

func run(op, pattern, dir string, ci, noIgnore bool) (int, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	// The policy an agent gets (the root writable, its protected paths
	// read-only: about twenty layers), so the per-entry policy check is
	// timed as it runs in the MCP server, not against an empty policy.
	d := policy.AgentDefaults()
	d.Root = root
	pol, err := policy.Resolve(policy.Request{}, d)
	if err != nil {
		return 0, err
	}
	ws, err := workspace.New(pol, workspace.Options{
		MaxEntries: 1 << 30, MaxReadBytes: 1 << 40, MaxFileBytes: 1 << 40,
		MaxResults: 1 << 30, MaxLineChars: 1 << 20, MaxPageBytes: 1 << 40,
	})
	if err != nil {
		return 0, err
	}
	defer ws.Close()
	switch op {
	case "grep":
		res, err := ws.GrepFiles(pattern, workspace.GrepOptions{CaseInsensitive: ci, NoIgnore: noIgnore})
		return res.Matches, err
	case "glob":
		res, err := ws.GlobFiles(pattern, workspace.GlobOptions{NoIgnore: noIgnore})
		return len(res.Paths), err
	}
	return 0, fmt.Errorf("unknown operation %q", op)
}
