// Command wsbench runs one workspace operation over a directory and prints
// how many results it found, for bench/files.sh to time beside ripgrep,
// grep and find. Every bound is lifted so the counts are comparable.
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
	pol := &policy.Policy{Root: root, Baseline: policy.Read}
	ws, err := workspace.New(pol, workspace.Options{
		MaxEntries: 1 << 30, MaxReadBytes: 1 << 40, MaxFileBytes: 1 << 40,
		MaxMatches: 1 << 30, MaxResults: 1 << 30, MaxLineChars: 1 << 20,
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
