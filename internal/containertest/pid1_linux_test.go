package containertest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runResult is the part of `ringfence run --json` these tests judge.
type runResult struct {
	Kind     string `json:"kind"`
	ExitCode *int   `json:"exitCode"`
	Signal   string `json:"signal"`
	Backend  string `json:"backend"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
}

func parseRun(t *testing.T, out string) runResult {
	t.Helper()
	var r runResult
	i := strings.Index(out, "{")
	if i < 0 || json.Unmarshal([]byte(out[i:]), &r) != nil {
		t.Fatalf("no run result in the output:\n%s", out)
	}
	return r
}

// TestPid1CommandRuns: ringfence as the container's pid 1 runs the command
// and reports its own outcome — exit status 3, no invented SIGKILL — in a
// minimal root and in one holding only the binary, as root and nobody.
// (Before the fix: 3 of 3 runs reported SIGKILL and the command never
// wrote its file.)
func TestPid1CommandRuns(t *testing.T) {
	for _, c := range []struct {
		name string
		bare bool
		user string
	}{
		{"minimal/root", false, ""}, {"minimal/nobody", false, "65534:65534"},
		{"binary-only/root", true, ""}, {"binary-only/nobody", true, "65534:65534"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b *box
			var argv []string
			if c.bare {
				// Nothing but ringfence in the image: the command is
				// ringfence itself, writing a file and failing with 125
				// on a second, bad subcommand.
				b = newBareBox(t, "", c.user)
				argv = []string{"/bin/ringfence", "run", "--json", "--root", "/ws", "--",
					"/bin/ringfence", "policy", "init", "/ws/marker"}
			} else {
				b = newBox(t, "", c.user)
				argv = []string{"/bin/ringfence", "run", "--json", "--root", "/ws", "--",
					"sh", "-c", "echo hi > /ws/marker; exit 3"}
			}
			out, code := b.exec(t, argv...)
			r := parseRun(t, out)
			if r.Signal != "" {
				t.Fatalf("as pid 1 the command was reported killed by %s:\n%s", r.Signal, out)
			}
			if _, err := os.Stat(b.path("ws/marker")); err != nil {
				t.Fatalf("as pid 1 the command never ran (no marker):\n%s", out)
			}
			want := 3
			if c.bare {
				want = 0
			}
			if r.ExitCode == nil || *r.ExitCode != want || code != want {
				t.Fatalf("exit: result %v, container %d; want %d\n%s", r.ExitCode, code, want, out)
			}
			// A bad argument is ringfence's own usage error, as pid 1 too.
			if c.bare {
				_, code = b.exec(t, "/bin/ringfence", "no-such-subcommand")
				if code != 125 {
					t.Errorf("ringfence's own usage error as pid 1 exits %d, want 125", code)
				}
			}
		})
	}
}

// TestPid1Signals: a stop (SIGTERM) or SIGINT sent to the container by its
// runtime reaches the confined tree (its trap runs), ends it and the
// container with 128+N (the tree itself gets SIGTERM, then SIGKILL
// --kill-after later, as `ringfence run` documents) — quickly, not by the runtime's SIGKILL after its
// grace period — and nothing of the tree is left running on the host.
func TestPid1Signals(t *testing.T) {
	for _, c := range []struct {
		sig  string
		code int
	}{{"TERM", 143}, {"INT", 130}} {
		t.Run(c.sig, func(t *testing.T) {
			b := newBox(t, "", "")
			token := fmt.Sprintf("rf-token-%d-%s", os.Getpid(), c.sig)
			// ringfence stops the tree with SIGTERM whatever signal
			// stopped ringfence (run's documented behaviour).
			script := `trap 'echo got > /ws/trapped; exit 7' TERM; touch /ws/started; while :; do sleep 1; done`
			name := b.start(t, "/bin/ringfence", "run", "--root", "/ws", "--kill-after", "5s", "--",
				"sh", "-c", script, token)
			b.waitFor(t, "ws/started", 30*time.Second)
			began := time.Now()
			if c.sig == "TERM" {
				podman(t, "stop", "-t", "30", name)
			} else {
				podman(t, "kill", "-s", c.sig, name)
				podman(t, "wait", name)
			}
			took := time.Since(began)
			got := podman(t, "inspect", "-f", "{{.State.ExitCode}}", name)
			if got != fmt.Sprint(c.code) {
				t.Errorf("container exit status %s after SIG%s, want %d", got, c.sig, c.code)
			}
			if took > 20*time.Second {
				t.Errorf("SIG%s took %v to end the container: the runtime had to kill it", c.sig, took)
			}
			if _, err := os.Stat(b.path("ws/trapped")); err != nil {
				t.Errorf("SIG%s never reached the confined command (its trap did not run)", c.sig)
			}
			if pids := hostProcsWith(token); len(pids) > 0 {
				t.Errorf("processes of the tree still run on the host after the container stopped: %v", pids)
			}
		})
	}
}

// TestPid1ReapsOrphans: a process orphaned in the container (a `podman
// exec` whose child outlives it) is re-parented to pid 1 and must be
// reaped. Control: busybox sleep as pid 1 never reaps, and the zombie is
// seen — so the count would catch ringfence not reaping.
func TestPid1ReapsOrphans(t *testing.T) {
	for _, c := range []struct {
		name    string
		argv    []string
		zombies bool
	}{
		{"control-sleep-as-pid1", []string{"sh", "-c", "touch /ws/started; exec sleep 60"}, true},
		{"ringfence-as-pid1", []string{"/bin/ringfence", "run", "--root", "/ws", "--",
			"sh", "-c", "touch /ws/started; exec sleep 60"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBox(t, "", "")
			name := b.start(t, c.argv...)
			b.waitFor(t, "ws/started", 30*time.Second)
			podman(t, "exec", name, "sh", "-c", "sleep 0.2 & sleep 0.2 & exit 0")
			time.Sleep(1500 * time.Millisecond)
			stats := podman(t, "exec", name, "sh", "-c", "cat /proc/[0-9]*/stat")
			z := zombies(stats)
			if c.zombies && z == 0 {
				t.Fatalf("control: no zombie under a non-reaping pid 1, so the count proves nothing:\n%s", stats)
			}
			if !c.zombies && z > 0 {
				t.Errorf("%d zombie(s) under ringfence as pid 1:\n%s", z, stats)
			}
		})
	}
}

// zombies counts the processes in state Z in /proc/PID/stat lines.
func zombies(stats string) int {
	n := 0
	for _, line := range strings.Split(stats, "\n") {
		// pid (comm) state …: the state follows the last ')'.
		if i := strings.LastIndex(line, ")"); i >= 0 && strings.HasPrefix(line[i+1:], " Z") {
			n++
		}
	}
	return n
}

// hostProcsWith lists host pids whose command line holds token.
func hostProcsWith(token string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), token) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
