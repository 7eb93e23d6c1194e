//go:build linux

package domaintest

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// Benchmark compares, in one run on the test internet, the
// same client direct (from the egress namespace, no sandbox) and through
// the sandbox's HTTP proxy: added latency per connection (connect + first
// byte, median of NET_BENCH_CONNS fresh connections) and throughput of one
// NET_BENCH_BYTES download (default 1 GiB), plus the supervisor's heap
// around the proxied download (the proxy streams: it should stay flat).
// It is a benchmark, run only when
// RINGFENCE_NET_BENCH=1 (bench/network.sh sets it): it measures, it
// asserts nothing about speed, but it fails if either path stops working.
func Benchmark(t *testing.T, prov confine.Provider) {
	if os.Getenv("RINGFENCE_NET_BENCH") != "1" {
		t.Skip("a benchmark: bench/network.sh runs it (RINGFENCE_NET_BENCH=1)")
	}
	conns, _ := strconv.Atoi(envOr("NET_BENCH_CONNS", "200"))
	size, _ := strconv.ParseInt(envOr("NET_BENCH_BYTES", strconv.Itoa(1<<30)), 10, 64)
	e := inittest.NewEnv(t)
	tn := Shared(t)
	script := e.Root + "/netbench.py"
	if err := os.WriteFile(script, []byte(netBenchPy), 0o644); err != nil {
		t.Fatal(err)
	}
	direct := func(args ...string) string {
		out, err := exec.Command("ip", append([]string{"netns", "exec", tn.egress, "python3", script}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("direct %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	proxied := func(args ...string) string {
		res, _ := Run(t, prov, e, tn, []string{"pkg.test"}, nil, `python3 "$ROOT/netbench.py" `+strings.Join(args, " "))
		if res.Code != 0 {
			t.Fatalf("proxied %v: exit %d\n%s", args, res.Code, res.Stderr)
		}
		return strings.TrimSpace(res.Stdout)
	}
	n := strconv.Itoa(conns)
	dl, pl := direct("lat", "direct", "198.51.100.10", "80", n), proxied("lat", "proxy", "pkg.test", "80", n)
	var dMed, dP90, pMed, pP90 float64
	fmt.Sscan(dl, &dMed, &dP90)
	fmt.Sscan(pl, &pMed, &pP90)
	if dMed == 0 || pMed == 0 {
		t.Fatalf("unreadable latencies: %q %q", dl, pl)
	}
	rounds, _ := strconv.Atoi(envOr("NET_BENCH_ROUNDS", "3"))
	rounds = max(rounds, 1)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heapBefore := ms.HeapInuse
	sz := strconv.FormatInt(size, 10)
	rate := func(out string) float64 {
		var r float64
		if fmt.Sscan(out, &r); r == 0 {
			t.Fatalf("unreadable throughput: %q", out)
		}
		return r
	}
	// Rounds alternate the two paths, so a burst of load from elsewhere
	// on the machine falls on both; each path's best round is its
	// capacity, the median of the rounds' own ratios the typical cost.
	var plain, tls [2][]float64 // [direct, proxied] MB/s per round
	var plainRatio, tlsRatio []float64
	for range rounds {
		d, p := rate(direct("get", "direct", "198.51.100.10", "80", sz)), rate(proxied("get", "proxy", "pkg.test", "80", sz))
		plain[0], plain[1] = append(plain[0], d), append(plain[1], p)
		plainRatio = append(plainRatio, p/d)
		d, p = rate(direct("gettls", "direct", "198.51.100.10", "443", sz, tn.CAFile)), rate(proxied("gettls", "proxy", "pkg.test", "443", sz, tn.CAFile))
		tls[0], tls[1] = append(tls[0], d), append(tls[1], p)
		tlsRatio = append(tlsRatio, p/d)
	}
	runtime.ReadMemStats(&ms)
	fmt.Printf("network benchmark (%s backend, %d connections, %d rounds of a %d-byte download), same client both ways\n", prov.Name(), conns, rounds, size)
	fmt.Printf("  connect+first byte  direct median %.3f ms p90 %.3f | proxied median %.3f ms p90 %.3f | added %.3f ms\n", dMed, dP90, pMed, pP90, pMed-dMed)
	for _, row := range []struct {
		name  string
		rates [2][]float64
		ratio []float64
	}{{"throughput (HTTP)", plain, plainRatio}, {"throughput (TLS)", tls, tlsRatio}} {
		fmt.Printf("  %-19s direct best %.1f MB/s | proxied best %.1f MB/s | best %.0f%% of direct, median round %.0f%% (rounds: %s)\n",
			row.name, slices.Max(row.rates[0]), slices.Max(row.rates[1]), 100*slices.Max(row.rates[1])/slices.Max(row.rates[0]),
			100*median(row.ratio), percents(row.ratio))
	}
	fmt.Printf("  supervisor heap     %.1f MiB before the proxied downloads, %.1f MiB after (in use)\n", float64(heapBefore)/(1<<20), float64(ms.HeapInuse)/(1<<20))
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

func percents(xs []float64) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%.0f%%", 100*x)
	}
	return strings.Join(out, " ")
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
