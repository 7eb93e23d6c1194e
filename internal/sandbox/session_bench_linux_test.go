//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/testenv"

	"github.com/ringfence/ringfence/policy"
)

// p50 reports the median of the per-call times as a metric beside ns/op
// (the mean): the target is on the median.
func p50(b *testing.B, times []time.Duration) {
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	if len(times) > 0 {
		b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
	}
}

// BenchmarkSessionTrue is Session.Start+Wait of /bin/true in a warm
// session: the init forks and executes it, nothing else starts.
func BenchmarkSessionTrue(b *testing.B) {
	l, err := New(Config{Root: b.TempDir(), Backend: "linux"})
	if err != nil {
		b.Skip(err)
	}
	defer l.Close()
	s, err := l.Session(context.Background(), policy.Request{})
	if err != nil {
		b.Skip(err)
	}
	defer s.Close()
	ctx := context.Background()
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		p, err := s.Start(ctx, Cmd{Argv: []string{"/bin/true"}})
		if err != nil {
			b.Fatal(err)
		}
		res, err := p.Wait(ctx)
		if err != nil || res.Kind != KindSuccess {
			b.Fatalf("%v %+v", err, res)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	p50(b, times)
}

// BenchmarkBareExecTrue is the baseline: os/exec of /bin/true, unconfined.
func BenchmarkBareExecTrue(b *testing.B) {
	times := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	p50(b, times)
}

// BenchmarkOneShotTrue is Exec of /bin/true (a new sandbox per call), for
// comparison.
func BenchmarkOneShotTrue(b *testing.B) {
	l, err := New(Config{Root: b.TempDir(), Backend: "linux"})
	if err != nil {
		b.Skip(err)
	}
	defer l.Close()
	times := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		res, err := l.Exec(context.Background(), []string{"/bin/true"}, ExecOptions{})
		if err != nil || res.Kind != KindSuccess {
			b.Fatalf("%v %+v", err, res)
		}
		times = append(times, time.Since(t0))
	}
	p50(b, times)
}

// TestSessionFootprint logs a session's start cost and the idle init's
// CPU time and resident memory (bench/sessions.sh prints them). It fails
// only if an idle init uses CPU: it must sleep in recvmsg.
func TestSessionFootprint(t *testing.T) {
	l := newLocal(t, Config{Backend: "linux"})
	t0 := time.Now()
	s, err := l.Session(context.Background(), policy.Request{})
	if err != nil {
		testenv.Need(t, "a linux-backend session", err)
	}
	start := time.Since(t0)
	defer s.Close()
	inits := procsWith(func(pid int, c string) bool { return strings.Contains(c, "__confine") && ppid(pid) == os.Getpid() })
	if len(inits) != 1 {
		t.Fatalf("inits %v", inits)
	}
	before := cpuTicks(inits[0])
	time.Sleep(2 * time.Second)
	after := cpuTicks(inits[0])
	rss := statusField(inits[0], "VmRSS")
	t.Logf("session start %v; session idle: %d CPU ticks in 2 s, VmRSS %s (RssAnon %s)", start.Round(time.Millisecond),
		after-before, rss, statusField(inits[0], "RssAnon"))
	if after-before > 2 {
		t.Fatalf("an idle session init used %d ticks of CPU in 2 s", after-before)
	}
}

func cpuTicks(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}

func statusField(pid int, name string) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	return "?"
}
