// Command fleet is the fleet load run of `ringfence serve` (issue 17):
// N server processes on loopback, C concurrent clients each, mixed calls
// (Execute, Start with stdin, REST PUT/GET/list/DELETE, a confined hash of
// each upload) for a duration, every result checked, then leak checks on
// every server after the run and after its shutdown (processes, mounts,
// descriptors, temp dirs). Prints p50/p99 per call beside a same-run
// ringfence.Local Exec, as a Markdown table; exits 1 on any wrong result
// or leak. bench/fleet.sh builds ringfence and runs it.
//
//	fleet -ringfence ./ringfence [-servers 4] [-clients 32] [-duration 3m]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/sandboxd/fleetload"
)

func main() {
	if ringfence.MaybeInternal() { // the local Exec baseline re-executes this binary
		return
	}
	var cfg fleetload.Config
	flag.StringVar(&cfg.Binary, "ringfence", "", "the ringfence binary to serve with (required)")
	flag.IntVar(&cfg.Servers, "servers", 4, "server processes")
	flag.IntVar(&cfg.Clients, "clients", 32, "concurrent clients per server")
	flag.DurationVar(&cfg.Duration, "duration", 3*time.Minute, "how long the load runs")
	flag.IntVar(&cfg.FDSlack, "fd-slack", 0, "descriptors a server may hold beyond its warm-up baseline after the run")
	backend := flag.String("backend", "linux", "the servers' and the local baseline's backend")
	flag.Parse()
	if cfg.Binary == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: fleet -ringfence BINARY [-servers N] [-clients C] [-duration D] [-backend B]")
		os.Exit(2)
	}
	cfg.ServeArgs = []string{"--backend", *backend}
	cfg.LocalBackend = *backend
	cfg.Log = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := fleetload.Run(ctx, cfg)
	if rep != nil {
		fmt.Printf("%d servers × %d clients, mixed calls for %v: %d rounds (≥ %d per client), %d errors, %d leaks\n\n",
			rep.Servers, rep.Clients, rep.Duration.Round(time.Second), rep.Rounds, rep.MinRounds, len(rep.Errors), len(rep.Leaks))
		fleetload.WriteTable(os.Stdout, rep.Stats)
		for _, n := range rep.Notes {
			fmt.Println("note:", n)
		}
		if len(rep.Errors)+len(rep.Leaks) > 0 {
			fmt.Fprintln(os.Stderr, "errors:\n  "+strings.Join(rep.Errors, "\n  "))
			fmt.Fprintln(os.Stderr, "leaks:\n  "+strings.Join(rep.Leaks, "\n  "))
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(1)
	}
}
