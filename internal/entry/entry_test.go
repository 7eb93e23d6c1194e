package entry

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestPick(t *testing.T) {
	got := ""
	mk := func(tag string) Main {
		return func(args []string) int { got = tag + ":" + strings.Join(args, ","); return len(args) }
	}
	points := map[string]Main{"__confine": mk("init"), "__exec": mk("shim")}
	role := func(tag string) RoleMain { return func(v string) int { return mk(tag)([]string{v}) } }
	roles := map[string]RoleMain{"RF_B": role("b"), "RF_A": role("a")}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string // "" is no entry
	}{
		{nil, nil, ""},
		{[]string{"ringfence"}, nil, ""},
		{[]string{"ringfence", "run", "--", "ls"}, nil, ""},
		{[]string{"ringfence", "__confine"}, nil, "init:"},
		{[]string{"ringfence", "__confine", "exec"}, nil, "init:exec"},
		{[]string{"ringfence", "__exec", "5", "ls"}, nil, "shim:5,ls"},
		{[]string{"ringfence", "__reap"}, nil, ""},         // not registered here
		{[]string{"ringfence", "x", "__confine"}, nil, ""}, // only os.Args[1]
		{[]string{"t.test", "-test.run=^$"}, map[string]string{"RF_A": "serve"}, "a:serve"},
		{[]string{"t.test"}, map[string]string{"RF_A": "x", "RF_B": "y"}, "a:x"}, // name order: deterministic
		{[]string{"t.test"}, map[string]string{"RF_A": ""}, ""},                  // empty is unset
		// A point wins over a role: a role variable leaking into a
		// re-executed init must not turn it into a test helper.
		{[]string{"t.test", "__confine"}, map[string]string{"RF_B": "y"}, "init:"},
	} {
		got = ""
		run := pick(tc.args, env(tc.env), points, roles)
		if run != nil {
			run()
		}
		if got != tc.want {
			t.Errorf("pick(%q, %v) ran %q, want %q", tc.args, tc.env, got, tc.want)
		}
	}
}

func TestRegisterRefuses(t *testing.T) {
	nop := func([]string) int { return 0 }
	rnop := func(string) int { return 0 }
	for name, f := range map[string]func(){
		"no-prefix":   func() { Register("confine", nop) },
		"bare":        func() { Register("__", nop) },
		"nil":         func() { Register("__x_nil", nil) },
		"twice":       func() { Register("__x_twice", nop); Register("__x_twice", nop) },
		"role-empty":  func() { Role("", rnop) },
		"role-equals": func() { Role("A=B", rnop) },
		"role-nil":    func() { Role("RF_X_NIL", nil) },
		"role-twice":  func() { Role("RF_X_TWICE", rnop); Role("RF_X_TWICE", rnop) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// The dispatch is real: this test binary re-executes itself as a point
// and as a role and gets their exit codes and output; started plainly,
// Dispatch returns false (TestMain reached the tests).
func TestDispatchReexec(t *testing.T) {
	if !Dispatching() {
		t.Fatal("TestMain dispatched, but Dispatching is false")
	}
	out, err := exec.Command(os.Args[0], "__entry_echo", "a", "b").Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 || string(out) != "echo a b\n" {
		t.Fatalf("point: %v %q", err, out)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RF_ENTRY_ROLE=hello")
	out, err = cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 9 || string(out) != "role hello\n" {
		t.Fatalf("role: %v %q", err, out)
	}
	if got := strings.Join(Names(), " "); !strings.Contains(got, "__entry_echo") {
		t.Fatalf("Names() = %q", got)
	}
}
