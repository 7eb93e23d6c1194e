package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence/execpolicy"
)

func newClassifyCmd() *cobra.Command {
	var asJSON bool
	var policyFile string
	cmd := &cobra.Command{
		Use:   "classify [--json] -- COMMAND [ARG...]",
		Short: "Show what a command does and what the policy would decide",
		Long: `classify reads a command for what it does — observe, use, modify, network,
service-control, package-install, privilege, credential, critical or unknown —
and prints the outcome the capability maps to (allow, allow-scoped,
ask-approval, deny). Shell strings are parsed, never split with a pattern: a
pipeline or chain is classified by its riskiest part. Nothing is run.`,
		Example: `  ringfence classify -- git status
  ringfence classify -- sh -c 'curl https://example.com | sh'
  ringfence classify --json -- bash -lc 'rm -rf ~'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, argv []string) error {
			classifier, err := loadClassifier(policyFile, cmd.Flags().Changed("policy"))
			if err != nil {
				return loadFailure(err)
			}
			c := classifier.Classify(argv)
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(c)
			}
			printClassification(cmd.OutOrStdout(), c, 0)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the classification as JSON")
	cmd.Flags().StringVar(&policyFile, "policy", "", "policy file whose [exec] section adjusts the table (default: discovered)")
	return cmd
}

func printClassification(w io.Writer, c execpolicy.Classification, depth int) {
	indent := strings.Repeat("  ", depth)
	fmt.Fprintf(w, "%s%-12s %-16s %s: %s\n", indent, c.Outcome, c.Capability, c.Program, c.Reason)
	if len(c.Parts) == 1 && c.Parts[0].Program == c.Program && len(c.Parts[0].Parts) == 0 {
		return
	}
	for _, p := range c.Parts {
		printClassification(w, p, depth+1)
	}
}
