package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence/internal/audit"
)

func newAuditCmd() *cobra.Command {
	var f audit.Filter
	var asJSON bool
	var htmlOut string
	cmd := &cobra.Command{
		Use:   "audit FILE",
		Short: "Show an audit trail written by ringfence mcp --audit",
		Long: `audit prints the tool calls recorded in FILE (JSON lines written by
ringfence mcp --audit FILE) as a table: time, session, tool, arguments (file
contents appear only as their size), classification, gate decision, backend,
outcome and duration in milliseconds. Filter to backtrack one answer to the
call that caused it. --html writes one self-contained page instead: a timeline
of the calls with their outcomes, refusals and approvals, filters by tool,
outcome and session, and each call's details; it loads nothing from anywhere.`,
		Example: `  ringfence audit ~/.ringfence-audit.jsonl
  ringfence audit audit.jsonl --outcome sandbox-violation
  ringfence audit audit.jsonl --session 3f9a1c2b7d4e5f60 --tool run_command
  ringfence audit audit.jsonl --json | jq .args
  ringfence audit audit.jsonl --html audit.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file, err := os.Open(args[0])
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			defer file.Close()
			recs, err := audit.Read(file, f)
			if err != nil {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", args[0], err)}
			}
			if htmlOut != "" {
				if asJSON {
					return &exitError{code: exitUsage, err: fmt.Errorf("--html and --json: choose one")}
				}
				return writeAuditHTML(htmlOut, filepath.Base(args[0]), recs)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				for _, r := range recs {
					if err := enc.Encode(r); err != nil {
						return err
					}
				}
				return nil
			}
			return audit.Table(cmd.OutOrStdout(), recs)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.Session, "session", "", "only the calls of the session labelled `LABEL` (the trail's session column)")
	fs.StringVar(&f.Tool, "tool", "", "only the calls of tool `NAME` (run_command, read_file, …)")
	fs.StringVar(&f.Outcome, "outcome", "", "only the calls that ended in outcome `KIND` (ok, gate-declined, sandbox-violation, …)")
	fs.BoolVar(&asJSON, "json", false, "print the matching records as JSON lines")
	fs.StringVar(&htmlOut, "html", "", "write the matching records as one self-contained HTML page to `OUT.html` (created 0600: it holds command lines)")
	return cmd
}
