package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

func newRunCmd() *cobra.Command {
	var flags sandboxFlags
	var asJSON, quiet bool
	cmd := &cobra.Command{
		Use:   "run [flags] -- COMMAND [ARG...]",
		Short: "Run a command confined to the workspace",
		Long: `run confines COMMAND with the strongest backend this host offers and runs it.
By default the workspace (--root, default the current directory) and a private
temp dir are writable, the rest of the host is read-only, protected paths such
as .git/hooks and shell start-up files are read-only, and the network is off.

The command's output passes through live; its exit status becomes ringfence's.
When ringfence itself decides the result it exits with one of its own codes:
120 no backend can enforce the policy (nothing ran), 121 policy refused,
122 a resource limit ended the command, 124 timed out, 125 usage error,
126 command not executable, 127 command not found. --json prints one object
whose "kind" says exactly what happened.`,
		Example: `  ringfence run -- make test
  ringfence run --network loopback --timeout 2m -- pytest -x
  ringfence run --mode read-only --json -- sh -c 'ls; touch x'
  ringfence run --deny ~/.ssh --write /tmp/cache --memory 1G --pids 256 -- npm ci`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			ld, err := flags.loadFor(cmd)
			if err != nil {
				return err // an *exitError: 121 for a refused policy file, else 125
			}
			return runCommand(cmd, ld, argv, asJSON, quiet)
		},
	}
	flags.register(cmd.Flags())
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object with the result instead of passing output through")
	cmd.Flags().BoolVarP(&quiet, "quiet", "q", false, "do not print ringfence's own note about denials and limits")
	return cmd
}

func runCommand(cmd *cobra.Command, ld *loaded, argv []string, asJSON, quiet bool) error {
	sb, err := ringfence.New(ld.config)
	if err != nil {
		return refusal(err)
	}
	defer sb.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	opts := ringfence.ExecOptions{Dir: workDir(ld.config.Root), Stdin: stdinOf(cmd)}
	if !asJSON {
		opts.Stdout, opts.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	}
	res, err := sb.Exec(ctx, argv, opts)
	if err != nil {
		return refusal(err)
	}
	if asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if !quiet && res.Outcome.Kind != outcome.OK && res.Outcome.Kind != outcome.NonzeroExit {
		fmt.Fprintf(cmd.ErrOrStderr(), "%s%s\n", outcome.AnnotationPrefix, res.Narration)
	}
	if code := exitCodeOf(res); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// workDir is the current directory as a path relative to the root, when it
// is inside the root; otherwise the root itself.
func workDir(root string) string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	rel, err := filepath.Rel(root, wd)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return ""
	}
	return rel
}

// stdinOf passes ringfence's standard input through, unless it is a
// terminal: a confined command gets no terminal to inject into.
func stdinOf(cmd *cobra.Command) io.Reader {
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return nil
		}
	}
	return in
}

// exitCodeOf maps a result onto ringfence's exit status: the command's own
// when it ran to an end, one of ringfence's codes when ringfence decided.
func exitCodeOf(res *ringfence.ExecResult) int {
	switch res.Kind {
	case "timed-out":
		return exitTimedOut
	case "over-budget":
		return exitOverBudget
	case "aborted":
		return 130
	case "runner-failure":
		return exitUsage
	}
	switch res.Outcome.Kind {
	case outcome.NotFound:
		return exitNotFound
	}
	if res.ExitCode != nil {
		return *res.ExitCode
	}
	if n := unix.SignalNum(res.Signal); n != 0 {
		return 128 + int(n)
	}
	if res.Outcome.Detail != "" && res.Kind == "command-failure" {
		return exitNoExec
	}
	return exitUsage
}

// refusal maps an error before anything ran onto an exit code.
func refusal(err error) error {
	switch {
	case errors.Is(err, policy.ErrUnavailable):
		return &exitError{code: exitUnavailable, err: err}
	case errors.Is(err, policy.ErrPolicy), errors.Is(err, pathrule.ErrPathRefused):
		return &exitError{code: exitPolicy, err: err}
	}
	return &exitError{code: exitUsage, err: err}
}
