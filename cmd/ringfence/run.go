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
	"sync/atomic"
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

The command's output passes through live. A timeout or a signal sends SIGTERM
to the command's whole tree, and SIGKILL --kill-after later, so trap handlers
run. --json prints one object whose "kind" says exactly what happened.

Exit status:
` + exitTable + `
A command can exit with 120-125 itself; --json always says which it was.`,
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
	ld.config.Audience = outcome.AudienceCLI // notes name --timeout, not timeout_seconds
	sb, err := ringfence.New(ld.config)
	if err != nil {
		return refusal(err)
	}
	defer sb.Close()
	ctx, stopped, stop := signalContext()
	defer stop()
	opts := ringfence.ExecOptions{Dir: workDir(ld.config.Root), Stdin: stdinOf(cmd)}
	if !asJSON {
		opts.Stdout, opts.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
		if t := terminalOf(cmd); t != nil {
			opts.Terminal, opts.Stdin = t, cmd.InOrStdin()
		}
	}
	res, err := sb.Exec(ctx, argv, opts)
	if err != nil {
		if sig := stopped(); sig != 0 {
			return &exitError{code: 128 + int(sig)}
		}
		return refusal(err)
	}
	if asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if !quiet && res.Outcome.Kind != outcome.OK && res.Outcome.Kind != outcome.NonzeroExit {
		prefix := paint(colorOn(cmd, cmd.ErrOrStderr()), sgrNote, strings.TrimSuffix(outcome.AnnotationPrefix, " "))
		fmt.Fprintf(cmd.ErrOrStderr(), "%s %s\n", prefix, res.Narration)
		if h := suggestHint(res); h != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), h)
		}
	}
	if code := exitCodeOf(res, stopped()); code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// signalContext is cancelled by the first SIGINT, SIGTERM, SIGHUP or
// SIGQUIT ringfence receives; stopped names that signal (0: none), so
// ringfence exits 128+N, as a shell reports a process the signal ended,
// once the tree is stopped. Further signals are swallowed until then: the
// tree is being stopped already.
func signalContext() (ctx context.Context, stopped func() syscall.Signal, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	var got atomic.Int32
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			if n, ok := s.(syscall.Signal); ok {
				got.Store(int32(n))
			}
			cancel()
		case <-done:
		}
	}()
	return ctx, func() syscall.Signal { return syscall.Signal(got.Load()) }, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
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
// terminal: a confined command never gets the user's terminal (with a
// terminal, terminalOf gives it a new one instead).
func stdinOf(cmd *cobra.Command) io.Reader {
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return nil
		}
	}
	return in
}

// exitCodeOf maps a result onto ringfence's exit status: 128+N when
// ringfence itself was stopped by signal N, the command's own status when
// it ran to an end (126 and 127, as a shell, when it could not be run), one
// of ringfence's codes when ringfence decided.
func exitCodeOf(res *ringfence.ExecResult, stoppedBy syscall.Signal) int {
	if stoppedBy != 0 {
		return 128 + int(stoppedBy)
	}
	switch res.Kind {
	case ringfence.KindTimedOut:
		return exitTimedOut
	case ringfence.KindOverBudget:
		return exitOverBudget
	case ringfence.KindAborted:
		return 128 + int(syscall.SIGINT)
	case ringfence.KindRunnerFailure:
		return exitUsage
	}
	if res.ExitCode != nil {
		return *res.ExitCode
	}
	if n := unix.SignalNum(res.Signal); n != 0 {
		return 128 + int(n)
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

// terminalOf is the new terminal the command runs on when ringfence's
// stdin or stdout is a terminal (never with --json, whose stdout is the
// result), or nil.
func terminalOf(cmd *cobra.Command) *ringfence.Terminal {
	in, out, errw := ttyFile(cmd.InOrStdin()), ttyFile(cmd.OutOrStdout()), ttyFile(cmd.ErrOrStderr())
	plan, ok := planTerminal(in != nil, out != nil, errw != nil)
	if !ok {
		return nil
	}
	plan.Input, plan.Size = in, out
	if out == nil {
		plan.Size = in
	}
	return &plan
}

// planTerminal decides which of the command's streams are the new
// terminal: those of ringfence's that are terminals, when its stdin or
// stdout is one. Stderr alone is not enough: `cmd <in >out` is a batch
// run whose diagnostics happen to reach a screen.
func planTerminal(in, out, errw bool) (ringfence.Terminal, bool) {
	if !in && !out {
		return ringfence.Terminal{}, false
	}
	return ringfence.Terminal{Stdin: in, Stdout: out, Stderr: errw}, true
}

// ttyFile is v as a file when it is a terminal, else nil.
func ttyFile(v any) *os.File {
	f, ok := v.(*os.File)
	if !ok {
		return nil
	}
	if !isTerminal(f) {
		return nil
	}
	return f
}
