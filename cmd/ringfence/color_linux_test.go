package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Colour goes to a terminal only, NO_COLOR and --color decide over that,
// and only ringfence's own prefix is painted — in a real process whose
// stderr is a pseudo-terminal or a pipe.
func TestColorOnTerminalOnly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tty     bool
		env     []string
		args    []string
		colored bool
	}{
		{"tty auto", true, nil, nil, true},
		{"tty NO_COLOR", true, []string{"NO_COLOR=1"}, nil, false},
		{"tty TERM=dumb", true, []string{"TERM=dumb"}, nil, false},
		{"tty never", true, nil, []string{"--color=never"}, false},
		{"pipe auto", false, nil, nil, false},
		{"pipe always", false, []string{"NO_COLOR=1"}, []string{"--color=always"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, tc.args...), "run", "--mode", "bogus", "--", "true")
			c := cliProcess(t, t.TempDir(), args...)
			c.Env = append(append(c.Env, "TERM=xterm"), tc.env...)
			var got string
			if tc.tty {
				u := newUserPTY(t, 24, 80)
				c.Stderr = u.slave
				err := c.Run()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage {
					t.Fatalf("exit: %v", err)
				}
				u.waitFor(t, "--mode")
				got = u.text()
			} else {
				out, err := c.CombinedOutput()
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage {
					t.Fatalf("exit: %v: %s", err, out)
				}
				got = string(out)
			}
			if strings.Contains(got, redPrefix) != tc.colored || (!tc.colored && strings.Contains(got, "\x1b[")) {
				t.Errorf("coloured=%v wanted, got %q", tc.colored, got)
			}
		})
	}
}
