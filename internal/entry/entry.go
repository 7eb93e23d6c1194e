package entry

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Main is an entry point: it gets the arguments after its name and
// returns the exit code.
type Main func(args []string) int

// RoleMain is a test role: it gets its variable's value and returns the
// exit code.
type RoleMain func(value string) int

var (
	mu     sync.Mutex
	points = map[string]Main{}
	roles  = map[string]RoleMain{}

	dispatching atomic.Bool
	underTest   atomic.Bool
)

// Register adds the point name (os.Args[1], starting with "__"). It is
// called from the owning package's init. It panics on a bad or taken name:
// a binary with an ambiguous table must not start.
func Register(name string, main Main) {
	if !strings.HasPrefix(name, "__") || len(name) < 3 || main == nil {
		panic(fmt.Sprintf("entry: bad point %q", name))
	}
	add(points, name, main)
}

// Role adds a test role, taken when the variable env is set and not empty
// (main gets its value). Only TestMains call it.
func Role(env string, main RoleMain) {
	if env == "" || strings.ContainsAny(env, "=\x00") || main == nil {
		panic(fmt.Sprintf("entry: bad role %q", env))
	}
	add(roles, env, main)
}

func add[F Main | RoleMain](table map[string]F, name string, main F) {
	mu.Lock()
	defer mu.Unlock()
	if _, taken := table[name]; taken {
		panic(fmt.Sprintf("entry: %q registered twice", name))
	}
	table[name] = main
}

// Dispatch runs the entry this process was started as, if any, and exits
// with its code; otherwise it records that this binary dispatches and
// returns false. It never returns true (the result only lets a call read
// as a guard: `if entry.Dispatch() { return }`).
func Dispatch() bool {
	dispatching.Store(true)
	mu.Lock()
	run := pick(os.Args, os.Getenv, points, roles)
	mu.Unlock()
	if run == nil {
		return false
	}
	os.Exit(run())
	return true
}

// Dispatching reports whether this binary's main called Dispatch, so
// re-executing it reaches the entry points.
func Dispatching() bool { return dispatching.Load() }

// pick is Dispatch's decision: the point named by args[1], else the first
// role (in name order) whose variable is set, else nil.
func pick(args []string, getenv func(string) string, points map[string]Main, roles map[string]RoleMain) func() int {
	if len(args) > 1 {
		if m := points[args[1]]; m != nil {
			rest := args[2:]
			return func() int { return m(rest) }
		}
	}
	for _, env := range slices.Sorted(maps.Keys(roles)) {
		if v := getenv(env); v != "" {
			m := roles[env]
			return func() int { return m(v) }
		}
	}
	return nil
}

// UnderTest reports whether this binary is a test binary (its TestMain
// went through Tests): code that would otherwise run something other than
// the source under test — the carried init (internal/confine/initimage) —
// runs the test binary itself instead, unless it can show the two are the
// same source.
func UnderTest() bool { return underTest.Load() }

// Names lists the registered points, sorted (for doctor and the tests).
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	return slices.Sorted(maps.Keys(points))
}

// Tests is a test binary's whole TestMain: dispatch, run the tests,
// then each of after (in order), then exit with the tests' code. m is a
// *testing.M (this package does not import testing).
func Tests(m interface{ Run() int }, after ...func()) {
	underTest.Store(true)
	Dispatch()
	code := m.Run()
	for _, f := range after {
		f()
	}
	os.Exit(code)
}
