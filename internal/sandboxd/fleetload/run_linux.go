package fleetload

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/outcome"
)

// Run starts the servers, warms them, takes their baselines, runs the
// load for cfg.Duration, and checks every server for leaks after the run
// and after its shutdown. The calling program must dispatch the
// re-executed entry points first (ringfence.MaybeInternal, or
// internal/entry in a TestMain): the local Exec baseline re-executes it.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	dir := cfg.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "fleetload-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	// As a child subreaper, the driver inherits any process a server's
	// tree orphans: after shutdown, a new child of ours is a leak.
	prev := new(int32) // on the heap: the kernel writes it during the call
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(prev)), 0, 0, 0); err != nil {
		return nil, fmt.Errorf("PR_GET_CHILD_SUBREAPER: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("PR_SET_CHILD_SUBREAPER: %w", err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, uintptr(*prev), 0, 0, 0) //nolint:errcheck // best effort restore
	kids0 := selfChildren()
	_, hostMounts0, err := hostMountsUnder(nil)
	if err != nil {
		return nil, err
	}

	rep := &Report{Servers: cfg.Servers, Clients: cfg.Clients}
	var mu sync.Mutex
	lat := map[string][]time.Duration{}
	record := func(k string, d time.Duration) { mu.Lock(); lat[k] = append(lat[k], d); mu.Unlock() }
	fail := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(rep.Errors) < 50 {
			rep.Errors = append(rep.Errors, fmt.Sprintf(format, a...))
		}
	}

	var servers []*server
	defer func() { // on an early return, nothing keeps running
		for _, s := range servers {
			_ = s.cmd.Process.Kill()
		}
	}()
	for n := range cfg.Servers {
		s, err := startServer(&cfg, n, filepath.Join(dir, fmt.Sprintf("s%d", n)))
		if err != nil {
			return rep, err
		}
		servers = append(servers, s)
		fmt.Fprintf(cfg.Log, "server %d: pid %d, gRPC %s, REST %s\n", n, s.cmd.Process.Pid, s.grpc, s.rest)
	}

	// Warm-up: every kind of call once per server, on a connection closed
	// before the baseline, so the baseline holds what the server keeps
	// for good (its session, its private dirs, lazily opened descriptors).
	noRecord := func(string, time.Duration) {}
	for _, s := range servers {
		c, err := newClient(fmt.Sprintf("s%dwarm", s.n), s.grpc, s.rest, 0, noRecord)
		if err != nil {
			return rep, err
		}
		err = c.round(ctx, 0)
		c.close()
		if err != nil {
			return rep, fmt.Errorf("server %d warm-up: %w", s.n, err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "local"), 0o700); err != nil {
		return rep, err
	}
	local, err := sandbox.New(sandbox.Config{Root: filepath.Join(dir, "local"), MountPath: outcome.DefaultMountPath,
		Backend: cfg.LocalBackend}) // the zero Defaults: the agent profile
	if err != nil {
		return rep, fmt.Errorf("local sandbox: %w", err)
	}
	defer local.Close()
	// Idle, serial: one Execute at a time over gRPC, one local Exec at a time.
	if err := idleFigures(ctx, servers[0], local, record); err != nil {
		return rep, err
	}
	for _, s := range servers {
		if s.baseline, err = settledLook(s, cfg.SettleTime); err != nil {
			return rep, err
		}
		fmt.Fprintf(cfg.Log, "server %d baseline: %d descendants, %d fds, held dirs %v, %d mounts (own namespace %v), %d under its directories\n",
			s.n, len(s.baseline.Procs), len(s.baseline.FDs), s.baseline.HeldDirs, s.baseline.MountTotal, s.baseline.OwnNS, len(s.baseline.Mounts))
	}

	// The load: every client loops rounds until the deadline; a local Exec
	// of the same command runs beside them for the same-run comparison.
	begin := time.Now()
	end := begin.Add(cfg.Duration)
	var wg sync.WaitGroup
	var clients []*client
	rounds := make([]int, cfg.Servers*cfg.Clients)
	for _, s := range servers {
		for k := range cfg.Clients {
			c, err := newClient(fmt.Sprintf("s%dc%d", s.n, k), s.grpc, s.rest, uint64(begin.UnixNano()), record)
			if err != nil {
				return rep, err
			}
			clients = append(clients, c)
			slot := &rounds[s.n*cfg.Clients+k]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 1; time.Now().Before(end) && ctx.Err() == nil; i++ {
					if err := c.round(ctx, i); err != nil {
						fail("server %d: %v", s.n, err)
						// One error per client: the rest would repeat it. Its
						// file is removed, so that the root's check reports
						// the server's leftovers, not this client's.
						_, _ = c.do(context.Background(), http.MethodDelete, "fleet/"+c.name+"?recursive=true", nil, http.StatusNoContent)
						return
					}
					*slot++
				}
			}()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; time.Now().Before(end) && ctx.Err() == nil; i++ {
			if err := localExec(ctx, local, fmt.Sprintf("local-%d", i), KindLocalLoad, record); err != nil {
				fail("%v", err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	wg.Wait()
	rep.Duration = time.Since(begin)
	rep.MinRounds = -1
	for _, r := range rounds {
		rep.Rounds += r
		if rep.MinRounds < 0 || r < rep.MinRounds {
			rep.MinRounds = r
		}
	}
	if rep.MinRounds < 1 {
		fail("a client completed no round in %v", cfg.Duration)
	}
	for _, c := range clients {
		c.close()
	}
	mu.Lock()
	rep.Stats = summarize(lat)
	mu.Unlock()
	fmt.Fprintf(cfg.Log, "load: %d rounds in %v; checking for leaks\n", rep.Rounds, rep.Duration.Round(time.Millisecond))

	// After the run: each server back to its baseline.
	for _, s := range servers {
		if cfg.Inject != nil {
			if err := cfg.Inject(ServerInfo{N: s.n, PID: s.cmd.Process.Pid, GRPC: s.grpc, REST: s.rest, Root: s.root, Tmp: s.tmp}); err != nil {
				return rep, fmt.Errorf("server %d: Inject: %w", s.n, err)
			}
		}
		deadline := time.Now().Add(cfg.SettleTime)
		var leaks []string
		for {
			if s.last, err = look(s.cmd.Process.Pid, s.root, []string{s.base}); err != nil {
				return rep, err
			}
			if leaks = liveLeaks(s.baseline, s.last, cfg.FDSlack); len(leaks) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		left, err := entries(s.root, func(rel string) bool { return rel == "fleet" || filepath.Dir(rel) == "fleet" })
		if err != nil {
			return rep, err
		}
		if len(left) > 0 {
			leaks = append(leaks, "files left in the root after the run: "+strings.Join(left, ", "))
		}
		for _, l := range leaks {
			rep.Leaks = append(rep.Leaks, fmt.Sprintf("server %d: %s", s.n, l))
		}
	}

	// Shutdown: SIGTERM each server, then look for what it left behind.
	for _, s := range servers {
		var a afterShutdown
		if err := s.stop(cfg.StopTimeout); err != nil {
			a.ExitStatus = err.Error()
		}
		for k, desc := range s.last.Procs {
			if alive(k) {
				a.Alive = append(a.Alive, desc)
			}
		}
		held := append(append([]string{}, s.baseline.HeldDirs...), s.last.HeldDirs...)
		for _, d := range held {
			// The home layer (upper, cache) persists by design; its
			// per-run work dirs are checked below.
			if under(d, s.home) {
				continue
			}
			if _, err := os.Lstat(d); err == nil {
				a.DirsLeft = append(a.DirsLeft, d)
			}
		}
		if a.TmpLeft, err = entries(s.tmp, nil); err != nil {
			return rep, err
		}
		works, _ := filepath.Glob(filepath.Join(s.home, ".local/state/ringfence/home/*/work"))
		for _, w := range works {
			l, err := entries(w, nil)
			if err != nil {
				return rep, err
			}
			for _, e := range l {
				a.TmpLeft = append(a.TmpLeft, filepath.Join(w, e))
			}
		}
		if a.RootLeft, err = entries(s.root, func(rel string) bool { return rel == "fleet" || filepath.Dir(rel) == "fleet" }); err != nil {
			return rep, err
		}
		if a.NewMounts, _, err = hostMountsUnder(append([]string{s.base}, held...)); err != nil {
			return rep, err
		}
		for _, l := range a.leaks() {
			rep.Leaks = append(rep.Leaks, fmt.Sprintf("server %d: %s", s.n, l))
		}
	}
	servers = nil
	for p := range selfChildren() {
		if !kids0[p] {
			rep.Leaks = append(rep.Leaks, fmt.Sprintf("processes orphaned to the driver after shutdown: %d %s", p, cmdline(p)))
			var ws unix.WaitStatus
			_, _ = unix.Wait4(p, &ws, unix.WNOHANG, nil) // reap a zombie; a live one stays reported
		}
	}
	if _, n, err := hostMountsUnder(nil); err == nil && n != hostMounts0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("host mount count %d before, %d after (none under the servers' directories: another process's)", hostMounts0, n))
	}
	rep.Notes = append(rep.Notes, fmt.Sprintf("%d CPUs, GOMAXPROCS %d", runtime.NumCPU(), runtime.GOMAXPROCS(0)))
	if len(rep.Errors) > 0 || len(rep.Leaks) > 0 {
		return rep, fmt.Errorf("fleetload: %d wrong results or failed calls, %d leaks", len(rep.Errors), len(rep.Leaks))
	}
	return rep, nil
}

// settledLook waits until two looks 200ms apart agree on the descriptor
// and descendant counts (connections closing, a session's helpers
// exiting), and returns the last.
func settledLook(s *server, within time.Duration) (snapshot, error) {
	deadline := time.Now().Add(within)
	prev, err := look(s.cmd.Process.Pid, s.root, []string{s.base})
	for err == nil {
		time.Sleep(200 * time.Millisecond)
		var now snapshot
		if now, err = look(s.cmd.Process.Pid, s.root, []string{s.base}); err != nil {
			break
		}
		if (len(now.FDs) == len(prev.FDs) && len(now.Procs) == len(prev.Procs)) || time.Now().After(deadline) {
			return now, nil
		}
		prev = now
	}
	return snapshot{}, fmt.Errorf("server %d: %w", s.n, err)
}

// idleFigures times 20 serial Executes on one server and 20 serial local
// Execs of the same command.
func idleFigures(ctx context.Context, s *server, local *sandbox.Local, record func(string, time.Duration)) error {
	c, err := newClient(fmt.Sprintf("s%didle", s.n), s.grpc, s.rest, 0, func(_ string, d time.Duration) { record(KindIdleExecute, d) })
	if err != nil {
		return err
	}
	defer c.close()
	for i := range 20 {
		if err := c.execute(ctx, i); err != nil {
			return err
		}
		if err := localExec(ctx, local, fmt.Sprintf("idle-%d", i), KindLocalIdle, record); err != nil {
			return err
		}
	}
	return nil
}

// localExec runs the Execute round's command with ringfence.Local.Exec
// and checks it the same way.
func localExec(ctx context.Context, sb *sandbox.Local, tok, kind string, record func(string, time.Duration)) error {
	begin := time.Now()
	r, err := sb.Exec(ctx, []string{"sh", "-c", `printf %s "$1"; printf e%s "$1" >&2; exit "$2"`, "sh", tok, "3"}, sandbox.ExecOptions{})
	if err != nil {
		return fmt.Errorf("local Exec %s: %w", tok, err)
	}
	if r.Stdout != tok || r.Stderr != "e"+tok || r.ExitCode == nil || *r.ExitCode != 3 {
		return errors.New("local Exec " + tok + fmt.Sprintf(": stdout %q stderr %q kind %s", r.Stdout, r.Stderr, r.Kind))
	}
	record(kind, time.Since(begin))
	return nil
}
