package execpolicy

import (
	"strings"
	"testing"
)

// FuzzClassifyScript feeds shell strings through sh -c. Invariants: no
// panic; the verdict is the riskiest part's; no unknown part is allowed; a
// script the parser refuses is never allowed.
func FuzzClassifyScript(f *testing.F) {
	for _, c := range loadCorpus(f) {
		if len(c.argv) == 3 && c.argv[0] == "bash" {
			f.Add(c.argv[2])
		}
	}
	f.Fuzz(func(t *testing.T, script string) {
		got := Classify([]string{"sh", "-c", script})
		checkInvariants(t, script, got)
		if _, err := parseScript(script); err != nil && got.Outcome < AskApproval {
			t.Errorf("unparseable script classified %s/%s", got.Capability, got.Outcome)
		}
	})
}

// FuzzClassifyArgv feeds argvs (words separated by newlines) straight to
// Classify. Same invariants, and an argv whose program the table does not
// know is never allowed.
func FuzzClassifyArgv(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(strings.Join(c.argv, "\n"))
	}
	f.Fuzz(func(t *testing.T, joined string) {
		argv := strings.Split(joined, "\n")
		got := Classify(argv)
		checkInvariants(t, joined, got)
		if name, ok := systemName(argv[0]); ok && !strings.ContainsAny(name, "/") {
			if _, known := lookup(family(name)); !known && got.Outcome < AskApproval {
				t.Errorf("unknown program %q classified %s/%s", name, got.Capability, got.Outcome)
			}
		}
	})
}
