//go:build linux

package ringfence

import (
	"context"
	"os/exec"
	"sort"
	"testing"
	"time"

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
