package conformance

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/ringfence/ringfence"
)

// Options tune a run. The zero value is ready to use.
type Options struct {
	// Name is the sandbox's name in the report; "" is "sandbox".
	Name string
	// Node and Python are the interpreters the network probes run inside
	// the sandbox (Node first); defaults "node" and "python3". A probe that
	// finds neither is reported as skipped, never as passed.
	Node, Python string
	// Timeout is the timeout the timeout check sets; default 2 s. Its
	// command's descendants must have started within it (the check runs
	// beside three others): 300 ms was too short for a bwrap run on a
	// loaded host, and the check then observed nothing.
	Timeout time.Duration
	// Escapes names the escape checks to include (see Escapes); nil
	// includes every one, an empty non-nil slice none.
	Escapes []string
	// Parallel is how many checks run at once in Run; default 4.
	Parallel int
	// CheckTimeout bounds one check, its sandbox's creation included;
	// default 30 s.
	CheckTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "sandbox"
	}
	if o.Node == "" {
		o.Node = "node"
	}
	if o.Python == "" {
		o.Python = "python3"
	}
	if o.Timeout <= 0 {
		o.Timeout = 2 * time.Second
	}
	if o.Parallel <= 0 {
		o.Parallel = 4
	}
	if o.CheckTimeout <= 0 {
		o.CheckTimeout = 30 * time.Second
	}
	return o
}

// Check is one check's result.
type Check struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Detail says what went wrong, why it was skipped, or "not claimed"
	// for an isolation check of a claim the sandbox does not make.
	Detail string `json:"detail,omitempty"`
	// Skipped is true when the check could not observe what it checks
	// (its probe could not run inside the sandbox). A skipped check is not
	// a failure, and not a pass either: OK is false.
	Skipped bool `json:"skipped,omitempty"`
}

// Report is what a run found.
type Report struct {
	Sandbox string `json:"sandbox"`
	// Passed is true when no check failed (skipped ones aside).
	Passed bool    `json:"passed"`
	Checks []Check `json:"checks"`
}

// Failed lists the checks that failed.
func (r Report) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if !c.OK && !c.Skipped {
			out = append(out, c)
		}
	}
	return out
}

// Skipped lists the checks that could not observe what they check.
func (r Report) Skipped() []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Skipped {
			out = append(out, c)
		}
	}
	return out
}

// Names lists the checks a run with opts performs, in report order.
func Names(opts Options) []string {
	var out []string
	for _, c := range selected(opts) {
		out = append(out, c.name)
	}
	return out
}

// Escapes lists the escape checks, the ones Options.Escapes selects from.
func Escapes() []string {
	var out []string
	for _, c := range allChecks() {
		if c.escape {
			out = append(out, c.name)
		}
	}
	return out
}

// Run checks the sandboxes create makes against the contract, with no test
// framework. Every check gets a fresh sandbox, closed (twice) afterwards;
// checks run opts.Parallel at a time, and the report lists them in a
// stable order.
func Run(ctx context.Context, create func() (ringfence.Sandbox, error), opts Options) Report {
	opts = opts.withDefaults()
	list := selected(opts)
	rep := Report{Sandbox: opts.Name, Passed: true, Checks: make([]Check, len(list))}
	sem := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	for i, c := range list {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rep.Checks[i] = runOne(ctx, create, c, opts)
		}()
	}
	wg.Wait()
	for _, c := range rep.Checks {
		if !c.OK && !c.Skipped {
			rep.Passed = false
		}
	}
	return rep
}

// runOne runs one check on a fresh sandbox and turns what happened into a
// Check: a panic, in the check or in the sandbox, is a failure.
func runOne(ctx context.Context, create func() (ringfence.Sandbox, error), c check, opts Options) (res Check) {
	res.Name = c.name
	ctx, cancel := context.WithTimeout(ctx, opts.CheckTimeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			res = Check{Name: c.name, Detail: fmt.Sprintf("panic: %v\n%s", p, debug.Stack())}
		}
	}()
	sb, err := create()
	if err != nil {
		return Check{Name: c.name, Detail: "create: " + err.Error()}
	}
	if sb == nil {
		return Check{Name: c.name, Detail: "create returned no sandbox"}
	}
	err = runOn(ctx, sb, c, opts)
	if cerr := closeTwice(sb); cerr != nil && err == nil {
		err = cerr
	}
	return verdict(c.name, err)
}

func runOn(ctx context.Context, sb ringfence.Sandbox, c check, opts Options) error {
	if c.claim != nil && !c.claim(sb.Isolation()) {
		return errNotClaimed
	}
	e, err := newEnv(ctx, sb, opts)
	if err != nil {
		return err
	}
	defer e.cleanup()
	return c.run(e)
}

// closeTwice closes sb twice, as the contract says it must allow.
func closeTwice(sb ringfence.Sandbox) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("close panicked: %v", p)
		}
	}()
	if err := sb.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	if err := sb.Close(); err != nil {
		return fmt.Errorf("second close: %w", err)
	}
	return nil
}

var (
	errNotClaimed = errors.New("not claimed")
	errSkip       = errors.New("skipped")
)

// skipf reports that a check could not observe what it checks.
func skipf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errSkip}, args...)...)
}

func verdict(name string, err error) Check {
	switch {
	case err == nil:
		return Check{Name: name, OK: true}
	case errors.Is(err, errNotClaimed):
		return Check{Name: name, OK: true, Detail: "not claimed"}
	case errors.Is(err, errSkip):
		return Check{Name: name, Skipped: true, Detail: err.Error()}
	}
	return Check{Name: name, Detail: err.Error()}
}
