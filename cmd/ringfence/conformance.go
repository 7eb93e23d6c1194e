package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/conformance"
)

// backendReport is one backend's result, the element of `--json` output.
type backendReport struct {
	Backend   string `json:"backend"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"` // why it is unavailable
	// Passed is true only when every check ran and none failed: a skipped
	// check observed nothing, so a report with one is "incomplete", never
	// "passed" (Verdict says which; Skipped counts them).
	Passed  bool                `json:"passed"`
	Verdict string              `json:"verdict"` // passed, failed, incomplete, unavailable
	Skipped int                 `json:"skipped"`
	Checks  []conformance.Check `json:"checks"`
}

func newConformanceCmd() *cobra.Command {
	var backend string
	var asJSON, strict bool
	cmd := &cobra.Command{
		Use:   "conformance",
		Short: "Run the sandbox conformance suite on ringfence's own backends",
		Long: `conformance runs the checks of package conformance — exit codes, output,
stdin, environment, timeouts, files, path refusals and the isolation each
backend claims, observed from outside with real attacks — on ringfence's own
backends. By default it runs every backend available here and lists the others
as unavailable with the reason; naming one with --backend makes its absence a
failure. A failing check makes the exit status 1. A check that could not
observe what it checks is listed as skipped and makes the backend's verdict
"incomplete", never "passed"; with --strict a skipped check fails the run
(exit status 1), as CI runs it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runConformance(cmd.Context(), cmd.OutOrStdout(), backend, asJSON, strict)
		},
	}
	cmd.Flags().StringVar(&backend, "backend", "all", "auto, "+strings.Join(ringfence.Backends, ", ")+", or all (every one available here)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the reports as JSON: [{backend, passed, verdict, skipped, checks: [{name, ok, skipped, detail}]}]")
	cmd.Flags().BoolVar(&strict, "strict", false, "fail (exit status 1) when any check was skipped")
	return cmd
}

func runConformance(ctx context.Context, out io.Writer, backend string, asJSON, strict bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	names, err := conformanceBackends(backend)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	reports := make([]backendReport, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reports[i] = conformOne(ctx, name)
		}()
	}
	wg.Wait()
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return err
		}
	} else {
		printConformance(out, reports)
	}
	return conformanceExit(reports, backend != "all", strict)
}

// conformanceBackends expands --backend.
func conformanceBackends(flag string) ([]string, error) {
	switch {
	case flag == "all" || flag == "":
		return ringfence.Backends, nil
	case flag == "auto" || slices.Contains(ringfence.Backends, flag):
		return []string{flag}, nil
	}
	return nil, fmt.Errorf("unknown backend %q (want auto, %s or all)", flag, strings.Join(ringfence.Backends, ", "))
}

func conformOne(ctx context.Context, backend string) backendReport {
	if err := conformance.LocalAvailable(backend); err != nil {
		return backendReport{Backend: backend, Reason: err.Error(), Verdict: "unavailable", Checks: []conformance.Check{}}
	}
	rep := conformance.Run(ctx, conformance.Local(backend), conformance.Options{Name: backend})
	return judged(backendReport{Backend: backend, Available: true, Checks: rep.Checks})
}

// judged fills in a report's verdict from its checks: failed when one
// failed, else incomplete when one was skipped, else passed.
func judged(r backendReport) backendReport {
	failed := 0
	r.Skipped = 0
	for _, c := range r.Checks {
		switch {
		case c.Skipped:
			r.Skipped++
		case !c.OK:
			failed++
		}
	}
	switch {
	case !r.Available:
		r.Verdict = "unavailable"
	case failed > 0:
		r.Verdict = "failed"
	case r.Skipped > 0:
		r.Verdict = "incomplete"
	default:
		r.Verdict = "passed"
	}
	r.Passed = r.Verdict == "passed"
	return r
}

// conformanceExit is 0 when every check that ran passed; 1 when one
// failed, or (strict) when one was skipped; exitUnavailable when a backend
// named explicitly cannot run here.
func conformanceExit(reports []backendReport, named, strict bool) error {
	failed, skipped := 0, 0
	for _, r := range reports {
		if named && !r.Available {
			return &exitError{code: exitUnavailable, err: fmt.Errorf("backend %s is unavailable here: %s", r.Backend, r.Reason)}
		}
		switch r.Verdict {
		case "failed":
			failed++
		case "incomplete":
			skipped += r.Skipped
		}
	}
	if failed > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d backend(s) failed conformance", failed)}
	}
	if strict && skipped > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%d check(s) skipped, and --strict allows none", skipped)}
	}
	if !slices.ContainsFunc(reports, func(r backendReport) bool { return r.Available }) {
		return &exitError{code: exitUnavailable, err: errors.New("no backend is available here")}
	}
	return nil
}

func printConformance(out io.Writer, reports []backendReport) {
	for _, r := range reports {
		if !r.Available {
			fmt.Fprintf(out, "%s: unavailable: %s\n\n", r.Backend, r.Reason)
			continue
		}
		fmt.Fprintf(out, "%s: %s (%s)\n", r.Backend, verdictWord(r), tally(r.Checks))
		for _, c := range r.Checks {
			mark, detail := "ok  ", ""
			switch {
			case c.Skipped:
				mark = "skip"
			case !c.OK:
				mark = "FAIL"
			}
			if c.Detail != "" {
				detail = " — " + strings.ReplaceAll(c.Detail, "\n", "\n        ")
			}
			fmt.Fprintf(out, "  %s %s%s\n", mark, c.Name, detail)
		}
		fmt.Fprintln(out)
	}
}

// verdictWord is the headline of a backend's report: "passed" only when
// every check ran and none failed.
func verdictWord(r backendReport) string {
	switch r.Verdict {
	case "passed":
		return "passed"
	case "incomplete":
		return fmt.Sprintf("INCOMPLETE: %d check(s) skipped", r.Skipped)
	}
	return "FAILED"
}

func tally(checks []conformance.Check) string {
	var ok, failed, skipped, unclaimed int
	for _, c := range checks {
		switch {
		case c.Skipped:
			skipped++
		case !c.OK:
			failed++
		case c.Detail == "not claimed":
			unclaimed++
		default:
			ok++
		}
	}
	return fmt.Sprintf("%d ok, %d failed, %d skipped, %d not claimed", ok, failed, skipped, unclaimed)
}
