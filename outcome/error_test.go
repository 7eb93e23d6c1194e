package outcome

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorOf(t *testing.T) {
	sentinel := errors.New("sentinel")
	o := Outcome{Kind: PathRejected, Path: "../x", Reason: "dotdot"}
	err := fmt.Errorf("wrapped: %w", &Error{Op: "workspace", Outcome: o, Err: sentinel})
	got, ok := Of(err)
	if !ok || got.Kind != o.Kind || got.Path != o.Path || got.Reason != o.Reason {
		t.Fatalf("Of = %+v, %v; want %+v", got, ok, o)
	}
	if !errors.Is(err, sentinel) {
		t.Fatal("the sentinel is not reachable with errors.Is")
	}
	if _, ok := Of(errors.New("plain")); ok {
		t.Fatal("Of found an outcome in a plain error")
	}
	if _, ok := Of(nil); ok {
		t.Fatal("Of found an outcome in nil")
	}
	for _, c := range []struct {
		e    Error
		want string
	}{
		{Error{Op: "workspace", Outcome: o}, "workspace: path-rejected (dotdot)"},
		{Error{Op: "tools", Outcome: Outcome{Kind: InvalidArguments, Detail: `missing required field "path"`}}, `tools: invalid-arguments: missing required field "path"`},
		{Error{Op: "coderun", Outcome: Outcome{Kind: MissingProgram, Program: "python3"}}, "coderun: missing-interpreter: python3"},
		{Error{Outcome: Outcome{Kind: IOFailure}}, "io-failure"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
		if c.e.Unwrap() != nil {
			t.Errorf("%q unwraps to a sentinel it was not given", c.want)
		}
	}
}
