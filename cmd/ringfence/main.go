// Command ringfence confines the commands, code and file operations of AI
// agents. See README.md for the tour; `ringfence help` for every subcommand.
//
// Habits of a command-line tool: `--version` (the module version and the
// commit, from the build info), completion of flag values for bash, zsh and
// fish (completion.go, from the parsers' own lists), colour on ringfence's
// own prefixes only and only on a terminal (color.go: NO_COLOR, TERM=dumb,
// --color), notes in the command line's words (outcome.AudienceCLI: --timeout,
// --memory, sizes in MiB), and an exit-status table in `run --help`. Only the
// subcommand invoked is built (subcommandsFor): a cold `ringfence run` does
// not pay for every other command's flags; help and completion get them all.
// README.md's examples are run by docs_test.go; its install command by
// install_test.go, which checks the binary is static (no PT_INTERP, no
// DT_NEEDED) — only with CGO_ENABLED=0, which the README's commands carry:
// a plain `go install` on a host with gcc links libc (Go's own choice; no
// build constraint can turn cgo off, and -race needs it).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes of ringfence's own, documented in README.md. A confined command's
// exit status is passed through unchanged; these are what ringfence returns
// when it, not the command, decided the result. `--json` always says which.
const (
	exitUnavailable = 120 // no backend can enforce the policy here (fail closed)
	exitPolicy      = 121 // the policy or the request was refused
	exitOverBudget  = 122 // a resource limit ended the command
	exitDenied      = 123 // classification or the approval gate refused the command
	exitTimedOut    = 124 // the timeout ended the command (as timeout(1))
	exitUsage       = 125 // bad flags, bad policy file, or ringfence itself failed
	exitNoExec      = 126 // the command exists but could not be executed
	exitNotFound    = 127 // the command was not found inside the sandbox
)

// exitError carries an exit code out of a subcommand without printing twice.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func main() {
	if dispatchInternal() {
		return
	}
	os.Exit(execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// execute runs the CLI and returns the process exit code. Tests call it.
func execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(subcommandsFor(args))
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	prefix := paint(colorOn(root, stderr), sgrError, "ringfence:")
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(stderr, prefix, ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, prefix, err)
	return exitUsage
}

// newRoot is the root command over subs.
func newRoot(subs []*cobra.Command) *cobra.Command {
	root := bareRoot()
	root.AddCommand(subs...)
	setVersionFlag(root)
	completeValues(root)
	return root
}

// bareRoot is the root command with its own flags and no subcommand: what
// cobra's lookup of the subcommand sees (subcommandsFor).
func bareRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "ringfence",
		Short: "Confine what an AI agent's commands and file operations may touch",
		Long: `ringfence decides what an agent's tool call may touch, confines it with the
kernel's own mechanisms (namespaces, Landlock, seccomp), runs it, and tells the
model what happened in words it can act on.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	colorFlag(root)
	return root
}

// exitTable is the exit-status table of `ringfence run --help`; README.md
// has the same rows (a test compares them).
const exitTable = `  N      the command's own exit status, passed through
  120    no backend on this host can enforce the policy; nothing ran
  121    the policy or the request was refused
  122    a resource limit (memory, processes, CPU time, output) ended the command
  124    the timeout ended the command (as timeout(1))
  125    bad or conflicting flags, a bad policy file, or the sandbox failed to start
  126    the command exists but could not be executed
  127    the command was not found inside the sandbox
  128+N   the command, or ringfence itself, was ended by signal N
  130    ringfence was interrupted (Ctrl-C, SIGINT); the tree was stopped first
`
