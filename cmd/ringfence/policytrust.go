package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/policy/policyfile"
)

var roleText = map[string]string{
	roleExplicit:   "named with --policy",
	roleUser:       "your own policy",
	roleTrusted:    "trusted at these exact bytes",
	roleNarrowOnly: "not trusted: it only narrows your policy",
}

func nonNilFiles(f []fileUse) []fileUse {
	if f == nil {
		return []fileUse{}
	}
	return f
}

// trustStore is where the user's trust records live; an unknown config
// dir (no HOME, no XDG_CONFIG_HOME) is an error, never a guess.
func trustStore() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no user config dir for the trust store: %w", err)
	}
	return policyfile.TrustStorePath(dir), nil
}

// policyFileArg is FILE, else .ringfence.toml in the current directory,
// named as the trust store names it.
func policyFileArg(args []string) (string, error) {
	p := ".ringfence.toml"
	if len(args) == 1 {
		p = args[0]
	}
	return policyfile.CanonicalPath(p)
}

func newPolicyTrustCmd() *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Trust a workspace's policy file at its current contents (default .ringfence.toml)",
		Long: `A workspace's own policy file (.ringfence.toml in the root) may only narrow your
policy — your ~/.config/ringfence/policy.toml, or the built-in defaults — unless
you trust it. trust records the file's absolute path and the SHA-256 of its
current bytes in ~/.config/ringfence/trusted.json (mode 0600, written
atomically; sandboxed commands cannot read or write that directory). If the
file changes, it is no longer trusted until you trust it again. trust shows
what the file would widen before recording it; read the file first.`,
		Example: `  ringfence policy trust
  ringfence policy trust ~/src/app/.ringfence.toml
  ringfence policy trust --list`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := trustStore()
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if list {
				if len(args) > 0 {
					return &exitError{code: exitUsage, err: errors.New("--list takes no FILE")}
				}
				return listTrust(cmd.OutOrStdout(), store)
			}
			path, err := policyFileArg(args)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if err := trustFile(cmd.OutOrStdout(), store, path); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list the trusted files and whether each still matches")
	return cmd
}

// trustFile reads path once, checks that it is a usable policy file (for
// the workspace it sits in), says what it widens, and records its digest.
func trustFile(w io.Writer, store, path string) error {
	file, err := policyfile.LoadFile(path)
	if err != nil {
		return err
	}
	root := filepath.Dir(path)
	if _, err := file.Defaults(root); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := file.Exec.Compile(); err != nil {
		return fmt.Errorf("%s: [exec]: %w", path, err)
	}
	if _, err := file.EnvPolicy(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	trust, err := policyfile.LoadTrust(store)
	if err != nil {
		return err
	}
	// What trusting changes: measured against the user's own policy, as an
	// untrusted file would be.
	configDir, _ := os.UserConfigDir()
	if user, err := userSources(root, configDir); err == nil {
		var we *policyfile.WideningError
		if _, err := file.Narrow(user.base); errors.As(err, &we) {
			fmt.Fprintf(w, "it widens your policy: %s\n", strings.Join(we.Widens, "; "))
		}
	}
	if file.Mode != nil && *file.Mode == policy.DangerFullAccess {
		fmt.Fprintf(w, "warning: it sets mode = %q: commands will run with no confinement at all\n", policy.DangerFullAccess)
	}
	trust.Add(path, file.Digest, time.Now())
	if err := trust.Save(store); err != nil {
		return err
	}
	fmt.Fprintf(w, "trusted %s (sha256 %s)\n", path, file.Digest[:16])
	return nil
}

func listTrust(w io.Writer, store string) error {
	trust, err := policyfile.LoadTrust(store)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tSHA256\tTRUSTED\tNOW")
	for _, r := range trust.Files {
		state := "matches"
		if f, err := policyfile.LoadFile(r.Path); err != nil {
			state = "unreadable"
			if errors.Is(err, os.ErrNotExist) {
				state = "missing"
			}
		} else if f.Digest != r.SHA256 {
			state = "changed: not trusted"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Path, r.SHA256[:min(16, len(r.SHA256))], r.TrustedAt.Format(time.DateTime), state)
	}
	return tw.Flush()
}

func newPolicyUntrustCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "untrust [FILE]",
		Short: "Forget the trust in a policy file (default .ringfence.toml)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := trustStore()
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			path, err := policyFileArg(args)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			trust, err := policyfile.LoadTrust(store)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if !trust.Remove(path) {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s is not trusted", path)}
			}
			if err := trust.Save(store); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "no longer trusted: %s\n", path)
			return nil
		},
	}
}

// envExplained is the environment commands get, by name only: values
// never leave ringfence.
type envExplained struct {
	Passed   []string             `json:"passed"`   // every variable a command gets
	Refused  []policy.EnvDecision `json:"refused"`  // host variables kept out as credential-like or code-loading
	Unlisted int                  `json:"unlisted"` // host variables not on the allow-list
}

func explainEnv(cfg ringfence.Config) envExplained {
	vars, report := cfg.EnvPolicy.Build(os.Environ())
	for k := range cfg.Env {
		vars[k] = ""
	}
	vars["TMPDIR"] = "" // the sandbox's own private temp dir
	e := envExplained{Refused: []policy.EnvDecision{}}
	for k := range vars {
		e.Passed = append(e.Passed, k)
	}
	slices.Sort(e.Passed)
	for _, d := range report {
		switch {
		case d.Verdict == policy.EnvNotListed:
			e.Unlisted++
		case d.Verdict != policy.EnvPass && vars[d.Name] == "" && !slices.Contains(e.Passed, d.Name):
			e.Refused = append(e.Refused, d)
		}
	}
	return e
}

func (e envExplained) text() string {
	var b strings.Builder
	b.WriteString("environment (names only):\n  passed: " + strings.Join(e.Passed, " ") + "\n")
	if len(e.Refused) > 0 {
		var names []string
		for _, d := range e.Refused {
			names = append(names, d.Name+" ("+d.Verdict.String()+")")
		}
		b.WriteString("  kept out: " + strings.Join(names, ", ") + " — pass one with --env NAME\n")
	}
	fmt.Fprintf(&b, "  not on the allow-list: %d more\n", e.Unlisted)
	return b.String()
}
