package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/conformance"
)

// TestConformanceNeverPassesWithSkips: a report with a skipped check is
// printed as incomplete with the skip listed, never as "passed"; --strict
// turns any skip into exit status 1, and without it the exit stays 0.
func TestConformanceNeverPassesWithSkips(t *testing.T) {
	ok := conformance.Check{Name: "exit-code", OK: true}
	skip := conformance.Check{Name: "proc-isolation", Skipped: true, Detail: "skipped: no ps in the sandbox"}
	bad := conformance.Check{Name: "write-outside", Detail: "the file was written"}
	for _, c := range []struct {
		name      string
		checks    []conformance.Check
		verdict   string
		headline  string
		code      int // without --strict
		strictRet int
	}{
		{"all ok", []conformance.Check{ok}, "passed", "linux: passed", 0, 0},
		{"one skipped", []conformance.Check{ok, skip}, "incomplete", "linux: INCOMPLETE: 1 check(s) skipped", 0, 1},
		{"failed and skipped", []conformance.Check{bad, skip}, "failed", "linux: FAILED", 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := judged(backendReport{Backend: "linux", Available: true, Checks: c.checks})
			if r.Verdict != c.verdict || r.Passed != (c.verdict == "passed") {
				t.Fatalf("verdict %q passed %v, want %q", r.Verdict, r.Passed, c.verdict)
			}
			var out bytes.Buffer
			printConformance(&out, []backendReport{r})
			text := out.String()
			if !strings.HasPrefix(text, c.headline) {
				t.Errorf("headline:\n%s\nwant prefix %q", text, c.headline)
			}
			if r.Skipped > 0 {
				if strings.Contains(text, ": passed") {
					t.Errorf("a report with a skip printed as passed:\n%s", text)
				}
				if !strings.Contains(text, "skip proc-isolation") {
					t.Errorf("the skipped check is not listed as a skip:\n%s", text)
				}
			}
			for strict, want := range map[bool]int{false: c.code, true: c.strictRet} {
				err := conformanceExit([]backendReport{r}, true, strict)
				got := 0
				var ee *exitError
				if errors.As(err, &ee) {
					got = ee.code
				} else if err != nil {
					t.Fatalf("strict=%v: %v", strict, err)
				}
				if got != want {
					t.Errorf("strict=%v: exit %d, want %d (%v)", strict, got, want, err)
				}
			}
		})
	}
}
