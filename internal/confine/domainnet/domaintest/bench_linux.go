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
	"syscall"
	"testing"
	"time"

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
	// get runs one download and returns its MB/s and the CPU it cost per
	// MB: the client's own (it prints it) plus this process's (the test
	// internet's server, and for the proxied path the proxy).
	get := func(path func(...string) string, args ...string) (rate, cpuPerMB float64) {
		before := selfCPU()
		out := path(args...)
		sup := selfCPU() - before
		var got int64
		var client float64
		if fmt.Sscan(out, &rate, &got, &client); rate == 0 || got < size {
			t.Fatalf("unreadable download: %q", out)
		}
		return rate, (sup.Seconds() + client) * 1e6 / (float64(got) / 1e6)
	}
	// Rounds alternate the two paths, so a burst of load from elsewhere
	// on the machine falls on both; each path's best round is its
	// capacity, the median of the rounds' own ratios the typical cost.
	var plain, tls, plainCPU, tlsCPU [2][]float64 // [direct, proxied] per round: MB/s, CPU µs per MB
	var plainRatio, tlsRatio []float64
	for range rounds {
		d, dc := get(direct, "get", "direct", "198.51.100.10", "80", sz)
		p, pc := get(proxied, "get", "proxy", "pkg.test", "80", sz)
		plain[0], plain[1] = append(plain[0], d), append(plain[1], p)
		plainCPU[0], plainCPU[1] = append(plainCPU[0], dc), append(plainCPU[1], pc)
		plainRatio = append(plainRatio, p/d)
		d, dc = get(direct, "gettls", "direct", "198.51.100.10", "443", sz, tn.CAFile)
		p, pc = get(proxied, "gettls", "proxy", "pkg.test", "443", sz, tn.CAFile)
		tls[0], tls[1] = append(tls[0], d), append(tls[1], p)
		tlsCPU[0], tlsCPU[1] = append(tlsCPU[0], dc), append(tlsCPU[1], pc)
		tlsRatio = append(tlsRatio, p/d)
	}
	runtime.ReadMemStats(&ms)
	fmt.Printf("network benchmark (%s backend, %d connections, %d rounds of a %d-byte download), same client both ways\n", prov.Name(), conns, rounds, size)
	fmt.Printf("  connect+first byte  direct median %.3f ms p90 %.3f | proxied median %.3f ms p90 %.3f | added %.3f ms\n", dMed, dP90, pMed, pP90, pMed-dMed)
	for _, row := range []struct {
		name  string
		rates [2][]float64
		ratio []float64
		cpu   [2][]float64
	}{{"throughput (HTTP)", plain, plainRatio, plainCPU}, {"throughput (TLS)", tls, tlsRatio, tlsCPU}} {
		fmt.Printf("  %-19s direct best %.1f MB/s | proxied best %.1f MB/s | best %.0f%% of direct, median round %.0f%% (rounds: %s)\n",
			row.name, slices.Max(row.rates[0]), slices.Max(row.rates[1]), 100*slices.Max(row.rates[1])/slices.Max(row.rates[0]),
			100*median(row.ratio), percents(row.ratio))
		// CPU per MB holds still when other work shares the machine: on a
		// host where the CPU is the limit, throughput goes as its inverse.
		fmt.Printf("  %-19s CPU per MB (client + server + proxy): direct %.0f µs | proxied %.0f µs | direct/proxied %.0f%%\n",
			"", median(row.cpu[0]), median(row.cpu[1]), 100*median(row.cpu[0])/median(row.cpu[1]))
	}
	fmt.Printf("  supervisor heap     %.1f MiB before the proxied downloads, %.1f MiB after (in use)\n", float64(heapBefore)/(1<<20), float64(ms.HeapInuse)/(1<<20))
}

// selfCPU is this process's CPU time so far (user and system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
