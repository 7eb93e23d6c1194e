package fleetload

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// Call kinds, in the order the report prints them.
const (
	KindExecute     = "Execute sh (stdout+stderr+exit)"
	KindStart       = "Start cat + stdin + EOF"
	KindPut         = "PUT /v1/files"
	KindGet         = "GET /v1/files"
	KindHash        = "Execute sha256sum of the PUT"
	KindList        = "GET dir listing"
	KindDelete      = "DELETE (+404 GET)"
	KindIdleExecute = "Execute sh, idle, serial"
	KindLocalIdle   = "local Exec, idle, serial"
	KindLocalLoad   = "local Exec, during the load"
)

var kindOrder = []string{KindExecute, KindStart, KindPut, KindGet, KindHash, KindList, KindDelete,
	KindIdleExecute, KindLocalIdle, KindLocalLoad}

// Stat is one call kind's count and percentiles.
type Stat struct {
	Kind          string
	N             int
	P50, P99, Max time.Duration
}

// percentile is the nearest-rank p-th percentile (0 < p ≤ 100) of sorted
// durations: the smallest value with at least p% of the values at or
// below it. Zero for no values.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 · n)
	rank = max(rank, 1)
	return sorted[min(rank, len(sorted))-1]
}

// summarize turns the recorded latencies into one Stat per kind, in
// kindOrder (unknown kinds after, by name).
func summarize(lat map[string][]time.Duration) []Stat {
	var kinds []string
	for _, k := range kindOrder {
		if _, ok := lat[k]; ok {
			kinds = append(kinds, k)
		}
	}
	var extra []string
	for k := range lat {
		if !slices.Contains(kindOrder, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	var out []Stat
	for _, k := range append(kinds, extra...) {
		d := slices.Clone(lat[k])
		slices.Sort(d)
		out = append(out, Stat{Kind: k, N: len(d), P50: percentile(d, 50), P99: percentile(d, 99), Max: d[len(d)-1]})
	}
	return out
}

// WriteTable prints the stats as a Markdown table.
func WriteTable(w io.Writer, stats []Stat) {
	fmt.Fprintln(w, "| call | n | p50 ms | p99 ms | max ms |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, s := range stats {
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f |\n", s.Kind, s.N, ms(s.P50), ms(s.P99), ms(s.Max))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
