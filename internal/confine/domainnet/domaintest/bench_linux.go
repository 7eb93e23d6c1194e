//go:build linux

package domaintest

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
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
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heapBefore := ms.HeapInuse
	sz := strconv.FormatInt(size, 10)
	dt, pt := direct("get", "direct", "198.51.100.10", "80", sz), proxied("get", "proxy", "pkg.test", "80", sz)
	dtls := direct("gettls", "direct", "198.51.100.10", "443", sz, tn.CAFile)
	ptls := proxied("gettls", "proxy", "pkg.test", "443", sz, tn.CAFile)
	runtime.ReadMemStats(&ms)
	var dMed, dP90, pMed, pP90, dRate, pRate float64
	fmt.Sscan(dl, &dMed, &dP90)
	fmt.Sscan(pl, &pMed, &pP90)
	fmt.Sscan(dt, &dRate)
	fmt.Sscan(pt, &pRate)
	var dTLS, pTLS float64
	fmt.Sscan(dtls, &dTLS)
	fmt.Sscan(ptls, &pTLS)
	if dRate == 0 || pRate == 0 || dMed == 0 || pMed == 0 || dTLS == 0 || pTLS == 0 {
		t.Fatalf("unreadable measurements: %q %q %q %q", dl, pl, dt, pt)
	}
	fmt.Printf("network benchmark (%s backend, %d connections, %d-byte download), same client both ways\n", prov.Name(), conns, size)
	fmt.Printf("  connect+first byte  direct median %.3f ms p90 %.3f | proxied median %.3f ms p90 %.3f | added %.3f ms\n", dMed, dP90, pMed, pP90, pMed-dMed)
	fmt.Printf("  throughput          direct %.1f MB/s | proxied %.1f MB/s | %.0f%% of direct\n", dRate, pRate, 100*pRate/dRate)
	fmt.Printf("  throughput (TLS)    direct %.1f MB/s | through CONNECT %.1f MB/s | %.0f%% of direct\n", dTLS, pTLS, 100*pTLS/dTLS)
	fmt.Printf("  supervisor heap     %.1f MiB before the proxied download, %.1f MiB after (in use)\n", float64(heapBefore)/(1<<20), float64(ms.HeapInuse)/(1<<20))
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
