package outcome

import (
	"strings"
	"testing"
)

// A client that can never approve must not be sent round a loop: its
// narration says the policy decided, that retrying changes nothing, and
// names an alternative. The timeout and error texts are the control: they
// say something else, so the check can tell them apart.
func TestCannotApproveNarration(t *testing.T) {
	for _, reason := range []string{ReasonNoGate, ReasonNoApprover} {
		text := Narrate(Outcome{Kind: GateUnavailable, Reason: reason}, goldenContext)
		low := strings.ToLower(text)
		for _, want := range []string{"this client cannot approve", "the policy decided: not run", "run_code"} {
			if !strings.Contains(low, want) {
				t.Errorf("%s: %q lacks %q", reason, text, want)
			}
		}
		for _, bad := range []string{"retry later", "try again later", "wait"} {
			if strings.Contains(low, bad) {
				t.Errorf("%s: %q says %q", reason, text, bad)
			}
		}
	}
	for _, reason := range []string{ReasonGateTimeout, ReasonGateError, ""} {
		text := Narrate(Outcome{Kind: GateUnavailable, Reason: reason}, goldenContext)
		if strings.Contains(text, "cannot approve") || strings.Contains(strings.ToLower(text), "retry later") {
			t.Errorf("%q: %q", reason, text)
		}
	}
}
