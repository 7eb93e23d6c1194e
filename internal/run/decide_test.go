package run

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

func TestDeadline(t *testing.T) {
	s, m := time.Second, time.Minute
	for _, tc := range []struct {
		timeout, wall time.Duration
		want          time.Duration
		wall_         bool
	}{
		{0, 0, 0, false},
		{s, 0, s, false},
		{0, s, s, true},
		{s, m, s, false},
		{m, s, s, true},
		{s, s, s, true},
	} {
		o := &Options{Timeout: tc.timeout, Limits: policy.Limits{WallClock: tc.wall}}
		d, c := deadline(o)
		if d != tc.want || (c.breach == outcome.BreachWallClock) != tc.wall_ || (d > 0) != c.timedOut {
			t.Errorf("deadline(%v, %v) = %v %+v", tc.timeout, tc.wall, d, c)
		}
	}
}

func TestBreachOf(t *testing.T) {
	l := policy.Limits{MemoryBytes: 100, Processes: 4, CPUTime: time.Second}
	for _, tc := range []struct {
		name  string
		s     sample
		quota bool
		want  outcome.Breach
	}{
		{"idle", sample{MemoryBytes: 50, Processes: 2}, false, outcome.BreachNone},
		{"monitor memory", sample{MemoryBytes: 101}, false, outcome.BreachMemory},
		{"quota memory needs an oom kill", sample{MemoryBytes: 101}, true, outcome.BreachNone},
		{"quota oom kill", sample{OOMKills: 1}, true, outcome.BreachMemory},
		{"monitor ignores oom counters", sample{OOMKills: 1}, false, outcome.BreachNone},
		{"monitor processes", sample{Processes: 5}, false, outcome.BreachProcesses},
		{"at the limit is fine", sample{Processes: 4}, false, outcome.BreachNone},
		{"quota refused fork", sample{ForkRefused: 1}, true, outcome.BreachProcesses},
		{"cpu", sample{CPU: 2 * time.Second}, true, outcome.BreachCPU},
		{"memory first", sample{MemoryBytes: 101, Processes: 5, CPU: 2 * time.Second}, false, outcome.BreachMemory},
		{"processes before cpu", sample{Processes: 5, CPU: 2 * time.Second}, false, outcome.BreachProcesses},
	} {
		if got := breachOf(tc.s, l, tc.quota); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := breachOf(sample{MemoryBytes: 1 << 40, Processes: 1 << 20, CPU: time.Hour, OOMKills: 9, ForkRefused: 9}, policy.Limits{}, true); got != outcome.BreachNone {
		t.Errorf("no limits, breach %q", got)
	}
}

func TestExitFacts(t *testing.T) {
	seven, zero := 7, 0
	exited := func(code *int, sig string) *status.Summary {
		return &status.Summary{Started: true, Exit: &status.Event{Kind: status.Exited, ExitCode: code, Signal: sig}}
	}
	for _, tc := range []struct {
		name     string
		c        cause
		sum      *status.Summary
		code     int
		sig      string
		wantCode *int
		wantSig  string
	}{
		{"plain exit", cause{}, nil, 3, "", intp(3), ""},
		{"plain signal", cause{}, nil, -1, "SIGTERM", nil, "SIGTERM"},
		{"stopped has no code", cause{timedOut: true}, nil, 0, "", nil, ""},
		{"aborted", cause{aborted: true}, nil, -1, "SIGKILL", nil, "SIGKILL"},
		{"breach", cause{breach: outcome.BreachOutput}, nil, 0, "", nil, ""},
		{"status beats the init's 128+n", cause{}, exited(&seven, ""), 7 + 128, "", &seven, ""},
		{"status signal", cause{}, exited(nil, "SIGSEGV"), 128 + 11, "", nil, "SIGSEGV"},
		{"status zero", cause{}, exited(&zero, ""), 0, "", &zero, ""},
		{"no exit event: wait status", cause{}, &status.Summary{Started: true}, 5, "", intp(5), ""},
	} {
		got, sig := exitFacts(tc.c, tc.sum, tc.code, tc.sig)
		if !cmp.Equal(got, tc.wantCode) || sig != tc.wantSig {
			t.Errorf("%s: %v %q, want %v %q", tc.name, deref(got), sig, deref(tc.wantCode), tc.wantSig)
		}
	}
}

func intp(n int) *int { return &n }

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestParseStat(t *testing.T) {
	line := "1234 (a (weird) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 7 3 2 1 20 0 1 0 100 1000000 250 18446744073709551615"
	st, ok := parseStat(line)
	if !ok || st.ppid != 1 || st.rssPages != 250 || st.ticks != 13 {
		t.Fatalf("parseStat = %+v %v", st, ok)
	}
	for _, bad := range []string{"", "1 (x", "1 (x) S 1 2"} {
		if _, ok := parseStat(bad); ok {
			t.Errorf("parseStat(%q) accepted", bad)
		}
	}
}

func TestParsers(t *testing.T) {
	oom := "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"
	if keyed(oom, "oom_kill") != 3 || keyed(oom, "oom") != 0 || keyed("max 9", "max") != 9 {
		t.Errorf("keyed misread")
	}
	self := "9:name=systemd:/\n8:pids:/a\n4:memory:/process_api/x\n2:cpu,cpuacct:/c\n0::/v2\n"
	for ctrl, want := range map[string]string{"pids": "/a", "memory": "/process_api/x", "cpuacct": "/c", "": "/v2"} {
		if got, ok := ownCgroup(self, ctrl); !ok || got != want {
			t.Errorf("ownCgroup(%q) = %q %v", ctrl, got, ok)
		}
	}
	if _, ok := ownCgroup(self, "blkio"); ok {
		t.Errorf("found an absent controller")
	}
	for p, want := range map[string]bool{"/": true, "/a/b": true, "a": false, "/a/../b": false, "": false} {
		if safeCgroupPath(p) != want {
			t.Errorf("safeCgroupPath(%q) != %v", p, want)
		}
	}
}

func FuzzParsers(f *testing.F) {
	f.Add("1 (sh) S 1 1 1 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0 5 6 7 8")
	f.Add("oom_kill 1\nmax 2\n0::/x\n4:memory:/y")
	// Properties: no panic on any /proc or cgroup text; pids are positive;
	// a parsed stat never reports more fields than it read.
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseStat(s)
		_ = keyed(s, "max")
		_, _ = ownCgroup(s, "memory")
	})
}

func TestCaptureBounds(t *testing.T) {
	over := 0
	var live bytes.Buffer
	c := newCapture(10, &live, func() { over++ })
	for _, chunk := range []string{"hello", "world", "!!", "more"} {
		if n, err := c.Write([]byte(chunk)); n != len(chunk) || err != nil {
			t.Fatalf("Write = %d %v", n, err)
		}
	}
	got, seen := c.result()
	if string(got) != "helloworld" || seen != 16 || over != 1 || live.String() != "helloworld!!more" {
		t.Fatalf("capture %q seen %d over %d live %q", got, seen, over, live.String())
	}
	exact := newCapture(5, nil, func() { over++ })
	_, _ = exact.Write([]byte("12345"))
	if got, seen := exact.result(); string(got) != "12345" || seen != 0 || over != 1 {
		t.Fatalf("a stream exactly at the ceiling is not cut: %q %d %d", got, seen, over)
	}
}

// A failing live writer is dropped; capture and draining go on.
func TestCaptureLiveError(t *testing.T) {
	c := newCapture(100, failWriter{}, nil)
	_, _ = c.Write([]byte("a"))
	_, _ = c.Write([]byte("b"))
	if got, _ := c.result(); string(got) != "ab" || c.live != nil {
		t.Fatalf("got %q live %v", got, c.live)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("closed") }

func TestStartErrorHidesPath(t *testing.T) {
	err := &StartError{Err: &os.PathError{Op: "fork/exec", Path: "/secret/cmd", Err: os.ErrNotExist}}
	if bytes.Contains([]byte(err.Error()), []byte("secret")) || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%v", err)
	}
}

// The JSON field names are a stable contract (README, --json).
func TestResultJSON(t *testing.T) {
	code := 0
	r := Result{ExitCode: &code, Stdout: []byte("o"), Stderr: []byte{}, Truncated: &Truncated{Stdout: 9}, Breach: outcome.BreachOutput, Resources: ResourcesQuota, TreeKill: "pid-namespace"}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := []string{"aborted", "breach", "durationMs", "exitCode", "resources", "signal", "status", "stderr", "stdout", "timedOut", "treeKill", "truncated", "usage"}
	want = slices.DeleteFunc(want, func(k string) bool { return k == "signal" }) // omitted when empty
	if !cmp.Equal(keys, want) {
		t.Fatalf("keys %v", keys)
	}
	stopped, _ := json.Marshal(Result{})
	if !bytes.Contains(stopped, []byte(`"exitCode":null`)) {
		t.Fatalf("a stopped command must say exitCode null: %s", stopped)
	}
}

// The pids controller is in every group (the process bound and the census
// live there); memory only with a memory limit, cpuacct only with a CPU
// limit, and never required.
func TestV1Controllers(t *testing.T) {
	for _, tc := range []struct {
		l        policy.Limits
		req, opt []string
	}{
		{policy.Limits{}, []string{"pids"}, nil},
		{policy.Limits{Processes: 512}, []string{"pids"}, nil},
		{policy.Limits{MemoryBytes: 1}, []string{"pids", "memory"}, nil},
		{policy.Limits{CPUTime: time.Second}, []string{"pids"}, []string{"cpuacct"}},
		{policy.Limits{MemoryBytes: 1, Processes: 1, CPUTime: 1}, []string{"pids", "memory"}, []string{"cpuacct"}},
	} {
		req, opt := v1Controllers(tc.l)
		if !slices.Equal(req, tc.req) || !slices.Equal(opt, tc.opt) {
			t.Errorf("%+v: required %v optional %v, want %v %v", tc.l, req, opt, tc.req, tc.opt)
		}
	}
}
