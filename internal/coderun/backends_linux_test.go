package coderun

import (
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// TestEveryBackend: each backend shows the call directory at the path
// RINGFENCE_OUTPUT_DIR names, stages the inputs, collects the outputs, and
// holds the inputs and the code read-only (the tamper script of
// attack_linux_test.go; its unconfined control is there).
func TestEveryBackend(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"linux", "landlock", "bwrap"} {
		t.Run(backend, func(t *testing.T) {
			s := newSandbox(t, config{mode: policy.WorkspaceWrite, backend: backend})
			needInterp(t, s.sb, "bash")
			res := s.run(Request{Language: "bash", Inputs: []Input{{Name: "a", Content: str("original")}},
				Code: `cat inputs/a; echo; echo out > "$RINGFENCE_OUTPUT_DIR/o.txt"; [ "$PWD/outputs" = "$RINGFENCE_OUTPUT_DIR" ] && echo same-path; ` + tamper})
			if !strings.HasPrefix(res.Exec.Stdout, "original\nsame-path\n") {
				t.Fatalf("stdout %q stderr %q %s", res.Exec.Stdout, res.Exec.Stderr, res.Exec.RunnerError)
			}
			if a := artifact(t, res, "o.txt"); string(a.Content) != "out\n" {
				t.Errorf("artifact %+v", a)
			}
			if strings.Contains(res.Exec.Stdout, "evil") {
				t.Errorf("the inputs or the code were modified (files %s): %q", res.Exec.Enforcement.Files, res.Exec.Stdout)
			}
			scratchEmpty(t, s)
		})
	}
}
