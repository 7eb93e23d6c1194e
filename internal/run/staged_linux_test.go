package run

import (
	"errors"
	"io"
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
)

// stepLimiter records the order of a staged admission.
type stepLimiter struct {
	steps *[]string
	err   error
}

func (l stepLimiter) attr(*syscall.SysProcAttr) {}
func (l stepLimiter) enter() error              { return nil }
func (l stepLimiter) leave()                    {}
func (l stepLimiter) place(int) error {
	*l.steps = append(*l.steps, "place")
	return l.err
}
func (l stepLimiter) sample() sample { return sample{} }
func (l stepLimiter) members() []int { return nil }
func (l stepLimiter) remove()        {}

// A gated runner gets its spec before it is placed (so it confines itself
// meanwhile), but is admitted only once placed, and never when placing it
// failed: the command must not start outside its limits.
func TestStagedRunnerAdmittedOnlyOncePlaced(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stageErr error
		placeErr error
		want     []string
		fails    bool
	}{
		{name: "placed", want: []string{"stage", "place", "admit"}},
		{name: "place refused", placeErr: syscall.EACCES, want: []string{"stage", "place"}, fails: true},
		// ESRCH: the runner is already gone (it failed its set-up and
		// said so); admitting it lets nothing start.
		{name: "runner gone", placeErr: syscall.ESRCH, want: []string{"stage", "place", "admit"}},
		{name: "stage failed", stageErr: errors.New("spec"), want: []string{"stage"}, fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var steps []string
			c := &confine.Cmd{Stage: func(pid int) (func() error, error) {
				steps = append(steps, "stage")
				if tc.stageErr != nil {
					return nil, tc.stageErr
				}
				return func() error { steps = append(steps, "admit"); return nil }, nil
			}}
			s := &session{c: c, lim: stepLimiter{steps: &steps, err: tc.placeErr}, p: &proc{pid: 42}}
			err := s.admit()
			if (err != nil) != tc.fails || !slices.Equal(steps, tc.want) {
				t.Fatalf("steps %v, error %v; want %v (fails %v)", steps, err, tc.want, tc.fails)
			}
		})
	}

	// Behind the reaper (Options.Reaper; never for a pid-namespace runner
	// such as the linux init, but Stage does not depend on that) the
	// runner is the reaper, which starts its runner only once its own gate
	// opens: that comes last, after the admission.
	var steps []string
	gr, gw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer gr.Close()
	c := &confine.Cmd{Stage: func(int) (func() error, error) {
		steps = append(steps, "stage")
		return func() error { steps = append(steps, "admit"); return nil }, nil
	}}
	s := &session{c: c, lim: stepLimiter{steps: &steps}, p: &proc{pid: 42}, gate: gw}
	if err := s.admit(); err != nil || !slices.Equal(steps, []string{"stage", "place", "admit"}) {
		t.Fatalf("behind the reaper: steps %v, error %v", steps, err)
	}
	if b, err := io.ReadAll(gr); err != nil || len(b) != 1 {
		t.Fatalf("behind the reaper: its gate got %q (%v), want one byte then end of file", b, err)
	}

	// Without a limiter there is nothing to place: Setup, as before.
	setup := 0
	s = &session{c: &confine.Cmd{Setup: func(int) error { setup++; return nil },
		Stage: func(int) (func() error, error) { t.Fatal("staged without a limiter"); return nil, nil }}, p: &proc{pid: 42}}
	if err := s.admit(); err != nil || setup != 1 {
		t.Fatalf("unlimited runner: setup ran %d times, %v", setup, err)
	}
}
