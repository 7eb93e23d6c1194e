package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/suggest"
	"github.com/ringfence/ringfence/outcome"
)

func newPolicySuggestCmd() *cobra.Command {
	var rootFlag, policyPath, mountPath string
	var apply, includeSensitive bool
	cmd := &cobra.Command{
		Use:   "suggest [FILE|-]",
		Short: "Propose the smallest policy change that would have allowed what was refused",
		Long: `suggest reads what a run or a session was refused — the output of
ringfence run --json (from FILE or stdin), or an audit trail written by
ringfence mcp --audit — and proposes the smallest change of the policy file
that would have allowed each refused path ([[entry]]), host ([network] allow)
or command ([[exec.rule]]), as a unified diff, with the risk of each change.

It never proposes a credential store (~/.ssh, ~/.aws, …), a protected path
(git hooks and config, shell start-up files, the policy file), write access
over your home or a system directory, a private address or a privileged
command without saying so loudly, and leaves such a change out unless
--include-sensitive is given. ringfence's own config directory (your policy,
the trust store) is never proposed.

The file is the workspace's .ringfence.toml (--policy names another). Every
change is checked on the edited file before it is shown. --apply writes it
after showing it. A workspace's file that widens your policy is refused until
you trust it again: ringfence policy trust.`,
		Example: `  ringfence run --json -- make gen | ringfence policy suggest
  ringfence policy suggest result.json --apply
  ringfence policy suggest ~/.ringfence-audit.jsonl
  ringfence policy suggest --include-sensitive result.json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, name, err := suggestInput(cmd, args)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			defer in.Close()
			refs, skipped, err := suggest.Read(in)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", name, err)}
			}
			root, err := (&sandboxFlags{root: rootFlag}).rootDir()
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			target := policyPath
			if target == "" {
				target = filepath.Join(root, ".ringfence.toml")
			}
			if target, err = filepath.Abs(target); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if !strings.EqualFold(filepath.Ext(target), ".toml") {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s: suggest edits TOML policy files only", target)}
			}
			pt, err := openPolicyTarget(target)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			defer pt.Close()
			target = pt.path // where it really is, shown and judged (trustStep) as such
			text, exists, err := pt.read()
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			home, _ := os.UserHomeDir()
			configDir, _ := os.UserConfigDir()
			if mountPath == "" {
				mountPath = outcome.DefaultMountPath // ringfence mcp's default: an audit trail's model paths
			}
			plan, err := suggest.Suggest(refs, suggest.Input{
				Text: text, Exists: exists, Root: root, Cwd: filepath.Join(root, workDir(root)), Home: home, ConfigDir: configDir,
				MountPath: mountPath, Stat: statHost, IncludeSensitive: includeSensitive,
			})
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			plan.Skipped = append(skipped, plan.Skipped...)
			w := cmd.OutOrStdout()
			printPlan(w, cmd.ErrOrStderr(), name, target, len(refs), plan)
			if !apply || plan.New == plan.Old {
				if plan.New != plan.Old {
					fmt.Fprintln(w, "nothing written: rerun with --apply to write it")
				}
				return nil
			}
			if err := pt.write(text, exists, plan.New); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(w, "wrote %s\n%s\n", target, trustStep(target, root, configDir))
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&rootFlag, "root", "", "the workspace the runs used (default: the current directory)")
	fs.StringVar(&policyPath, "policy", "", "the policy `FILE` to change (.toml; default: .ringfence.toml in the root)")
	fs.StringVar(&mountPath, "mount-path", "", "where the audit trail's server showed the workspace (default /workspace)")
	fs.BoolVar(&apply, "apply", false, "write the change to the policy file after showing it")
	fs.BoolVar(&includeSensitive, "include-sensitive", false, "also include changes that open a credential store, a protected path, a private address or a privileged command")
	return cmd
}

// suggestInput is FILE, or stdin when there is none or it is "-"; a
// terminal on stdin is refused (nothing would ever arrive).
func suggestInput(cmd *cobra.Command, args []string) (io.ReadCloser, string, error) {
	if len(args) == 1 && args[0] != "-" {
		f, err := os.Open(args[0])
		return f, args[0], err
	}
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok && isTerminal(f) {
		return nil, "", errors.New("pipe `ringfence run --json` output in, or name a file (a result or an audit trail)")
	}
	return io.NopCloser(in), "stdin", nil
}

func statHost(p string) (isDir, exists bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return false, false
	}
	return fi.IsDir(), true
}

// trustStep says what the person must do before the file takes effect.
func trustStep(target, root, configDir string) string {
	switch {
	case configDir != "" && target == filepath.Join(configDir, "ringfence", "policy.toml"):
		return "It is your own policy file: it applies from the next run."
	case filepath.Dir(target) == root && filepath.Base(target) == ".ringfence.toml":
		return "A workspace's policy file that widens your policy is refused until you trust it at its new contents.\n" +
			"Read it, then run: ringfence policy trust " + target
	}
	return "It applies when you pass it: --policy " + target
}

func printPlan(w, errw io.Writer, source, target string, n int, p *suggest.Plan) {
	fmt.Fprintf(w, "%d refusal(s) read from %s; policy file: %s", n, source, target)
	if p.Created {
		fmt.Fprint(w, " (does not exist: it would be created from ringfence policy init's template)")
	}
	fmt.Fprintln(w)
	left := 0
	for _, c := range p.Changes {
		mark := "+"
		if !c.Included {
			mark, left = "!", left+1
		}
		fmt.Fprintf(w, "%s %s   (%s)\n", mark, termSafe(c.What), termSafe(c.From))
		fmt.Fprintf(w, "    risk: %s\n", termSafe(c.Risk))
		if c.Sensitive != "" {
			state := "INCLUDED because of --include-sensitive"
			if !c.Included {
				state = "NOT INCLUDED: rerun with --include-sensitive if you really mean it"
			}
			msg := fmt.Sprintf("    WARNING: %s\n    %s\n", termSafe(c.Sensitive), state)
			fmt.Fprint(w, msg)
			fmt.Fprintf(errw, "ringfence: SENSITIVE: %s: %s (%s)\n", termSafe(c.What), termSafe(c.Sensitive), strings.TrimSpace(state))
		}
		if p.Manual {
			for _, l := range c.Lines {
				fmt.Fprintf(w, "      %s\n", termSafe(l))
			}
		}
	}
	for _, c := range p.Changes {
		if c.Kind == suggest.KindHost && c.Included {
			fmt.Fprintln(w, "note: --allow-domain on the command line replaces the file's allow list: where you pass it, pass these hosts with it too")
			break
		}
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "- not suggested: %s (%s): %s\n", termSafe(s.What), termSafe(s.From), termSafe(s.Why))
	}
	switch {
	case p.Manual:
		fmt.Fprintf(w, "the file cannot be edited automatically (%s): add the lines above by hand\n", termSafe(p.ManualWhy))
	case p.New == p.Old && len(p.Changes) == 0:
		fmt.Fprintln(w, "no change to suggest")
	case p.New == p.Old:
		fmt.Fprintf(w, "no change included (%d left out)\n", left)
	default:
		for _, l := range strings.SplitAfter(suggest.Diff(filepath.Base(target), p.Old, p.New, p.Created), "\n") {
			fmt.Fprint(w, termSafe(strings.TrimSuffix(l, "\n"))+l[len(strings.TrimSuffix(l, "\n")):])
		}
	}
}

// termSafe keeps a record's text from driving the terminal: control
// characters (escape sequences, newlines), line and paragraph separators
// and every bidi control (which a bidi-aware terminal uses to show a
// path as another) are shown as '?'.
func termSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0),
			r == 0x061c, r == 0x200e, r == 0x200f, // ALM, LRM, RLM
			r >= 0x2028 && r <= 0x202e, // LS, PS, LRE, RLE, PDF, LRO, RLO
			r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
			return '?'
		}
		return r
	}, s)
}

// suggestHint is the sentence a refused run's note ends with: the command
// that turns what was refused into a policy change.
func suggestHint(res *ringfence.ExecResult) string {
	if res.Outcome.Kind != outcome.SandboxViolation {
		return ""
	}
	return outcome.AnnotationPrefix + "to allow this, rerun with --json and pipe it to `ringfence policy suggest`: it proposes the smallest policy change, with its risk."
}
