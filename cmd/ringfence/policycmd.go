package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/policy/policyfile"
)

func newPolicyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Explain the resolved policy, write a starting policy file, trust a workspace's file, suggest a change from refusals",
	}
	cmd.AddCommand(newPolicyExplainCmd(), newPolicyInitCmd(), newPolicyTrustCmd(), newPolicyUntrustCmd(), newPolicySuggestCmd())
	return cmd
}

func newPolicyExplainCmd() *cobra.Command {
	var flags sandboxFlags
	var paths []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "explain [flags] [--path P]...",
		Short: "Print the resolved layers and the access at each path",
		Long: `explain resolves the policy exactly as run and mcp would — built-in defaults,
then the policy file, then flags — and prints every layer (broadest first; the
deepest layer containing a path decides its access), what ends up writable,
what is unreadable, and the access at each --path.`,
		Example: `  ringfence policy explain
  ringfence policy explain --path .git/hooks --path src --path ~/.ssh
  ringfence policy explain --policy team.toml --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ld, err := flags.loadFor(cmd)
			if err != nil {
				return err
			}
			d := ld.config.Defaults
			d.Root = ld.config.Root
			d.ReadFile = os.ReadFile
			pol, err := policy.Resolve(policy.Request{}, d)
			if err != nil {
				return refusal(err)
			}
			e := policy.Explain(pol, absPaths(ld.config.Root, paths))
			env := explainEnv(ld.config)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(struct {
					policy.Explanation
					PolicyFiles []fileUse    `json:"policyFiles"`
					Env         envExplained `json:"env"`
				}{e, nonNilFiles(ld.files), env})
			}
			for _, f := range ld.files {
				fmt.Fprintf(cmd.OutOrStdout(), "policy file: %s (%s)\n", f.Path, roleText[f.Role])
			}
			fmt.Fprint(cmd.OutOrStdout(), e.Text())
			fmt.Fprint(cmd.OutOrStdout(), env.text())
			return nil
		},
	}
	flags.register(cmd.Flags())
	cmd.Flags().StringArrayVar(&paths, "path", nil, "show the access at `P` (relative to the root, or absolute; repeatable)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the explanation as JSON")
	return cmd
}

// absPaths makes --path values absolute: "~/" is the home directory,
// relative paths are under the root (explain's own convention: a person
// asks "what about src?" meaning the workspace's src).
func absPaths(root string, paths []string) []string {
	out := make([]string, 0, len(paths))
	home, _ := os.UserHomeDir()
	for _, p := range paths {
		switch {
		case len(p) > 1 && p[:2] == "~/" && home != "":
			p = home + p[1:]
		case p == "" || p[0] != '/':
			p = root + "/" + p
		}
		out = append(out, policy.Clean(p))
	}
	return out
}

func newPolicyInitCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [FILE]",
		Short: "Write a commented starting policy file (default .ringfence.toml)",
		Long: `init writes a commented policy file with every key and its default. In the
workspace root, .ringfence.toml is found automatically, and the sandbox cannot
rewrite it (it is a protected path).`,
		Example: `  ringfence policy init
  ringfence policy init ~/.config/ringfence/policy.toml`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ".ringfence.toml"
			if len(args) == 1 {
				path = args[0]
			}
			flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
			if force {
				flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
			}
			f, err := os.OpenFile(path, flag, 0o644)
			if err != nil {
				if os.IsExist(err) {
					err = fmt.Errorf("%s exists; use --force to overwrite it", path)
				}
				return &exitError{code: exitUsage, err: err}
			}
			if _, err := f.WriteString(policyfile.InitTemplate()); err != nil {
				f.Close()
				return err
			}
			if err := f.Close(); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", path)
			if filepath.Base(path) == ".ringfence.toml" {
				fmt.Fprintf(cmd.OutOrStdout(), "as a workspace's file it may only narrow your policy; if you edit it to widen, trust it: ringfence policy trust %s\n", path)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing file")
	return cmd
}
