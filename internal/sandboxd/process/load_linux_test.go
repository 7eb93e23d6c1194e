package process

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/ringfence/ringfence/internal/sandbox"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// loadClients × loadRounds mixed calls: bounded, loopback only.
const (
	loadClients = 32
	loadRounds  = 8
)

// TestLoadNothingLeaks drives loadClients concurrent clients, each doing
// Execute and Start-with-stdin calls whose results are checked exactly,
// then tears the server down and checks that nothing is left: no child
// process, no descriptor, no temp dir, no goroutine beyond a small slack.
// It logs p50/p99 per call beside a one-shot local Exec of the same
// command.
func TestLoadNothingLeaks(t *testing.T) {
	warm := newHarness(t) // the runtime's own one-time descriptors and goroutines
	warm.execute(t, nil, "true")
	warm.close()
	time.Sleep(100 * time.Millisecond)
	fds0, kids0, gor0 := countFDs(t), children(t), runtime.NumGoroutine()
	if held := heldTempDirs(t); len(held) > 0 {
		t.Fatalf("temp dirs held before the test: %v", held)
	}

	var mu sync.Mutex
	lat := map[string][]time.Duration{}
	record := func(k string, d time.Duration) { mu.Lock(); lat[k] = append(lat[k], d); mu.Unlock() }
	h := newHarness(t)
	for i := range 20 { // serial, for the figures
		begin := time.Now()
		h.execute(t, nil, "sh", "-c", fmt.Sprintf("echo %d", i))
		record("Execute sh -c echo (serial)", time.Since(begin))
	}
	var wg sync.WaitGroup
	errs := make(chan error, loadClients*loadRounds*2)
	for c := range loadClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range loadRounds { // concurrent
				if err := loadRound(h, c, i, record); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A one-shot local Exec of the same command, for comparison.
	sb, err := sandbox.New(sandbox.Config{Root: t.TempDir(), Backend: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		begin := time.Now()
		r, err := sb.Exec(context.Background(), []string{"sh", "-c", fmt.Sprintf("echo %d", i)}, sandbox.ExecOptions{})
		if err != nil || r.Stdout != fmt.Sprintf("%d\n", i) {
			t.Fatalf("local Exec: %v %+v", err, r)
		}
		record("local Exec (one-shot, serial)", time.Since(begin))
	}
	sb.Close()
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range lat {
			if !yield(k) {
				return
			}
		}
	}) {
		d := lat[k]
		slices.Sort(d)
		t.Logf("%-34s n=%4d p50 %7.2f ms  p99 %7.2f ms", k, len(d), ms(d[len(d)/2]), ms(d[len(d)*99/100]))
	}

	used := heldTempDirs(t) // the server's own private dirs, held (locked) while it lives
	if len(used) == 0 {
		t.Fatal("no private temp dir seen while serving: the leak check would prove nothing")
	}
	h.close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		fds, kids, gor := countFDs(t), children(t), runtime.NumGoroutine()
		var left []string
		for _, d := range used {
			if _, err := os.Lstat(d); err == nil {
				left = append(left, d)
			}
		}
		if fds <= fds0 && len(kids) <= len(kids0) && len(left) == 0 && gor <= gor0+5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("leaked: fds %d→%d, children %v→%v, temp dirs left %v, goroutines %d→%d", fds0, fds, kids0, kids, left, gor0, gor)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// loadRound is one client's Execute and Start-with-stdin, each checked.
func loadRound(h *harness, c, i int, record func(string, time.Duration)) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	want := fmt.Sprintf("%d-%d", c, i)
	begin := time.Now()
	r, err := h.c.Execute(ctx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "echo " + want}}})
	if err != nil || r.GetExitCode() != 0 || string(r.GetStdout()) != want+"\n" {
		return fmt.Errorf("Execute %s: %v %v", want, r, err)
	}
	record("Execute sh -c echo (32 clients)", time.Since(begin))
	begin = time.Now()
	st, err := h.c.Start(ctx, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"cat"}}})
	if err != nil {
		return err
	}
	m, err := st.Recv()
	if err != nil || m.GetInit() == nil {
		return fmt.Errorf("Start %s: first event %v %v", want, m, err)
	}
	id := m.GetInit().GetProcessId()
	if _, err := h.c.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: id, Payload: &pb.WriteStdinRequest_Input{Input: []byte(want)}}); err != nil {
		return err
	}
	if _, err := h.c.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: id, Payload: &pb.WriteStdinRequest_Eof{Eof: &emptypb.Empty{}}}); err != nil {
		return err
	}
	var out strings.Builder
	for {
		m, err := st.Recv()
		if err != nil {
			return fmt.Errorf("Start %s: no ExitEvent: %v", want, err)
		}
		out.Write(m.GetStdout())
		if e := m.GetExit(); e != nil {
			if e.GetExitCode() != 0 || out.String() != want {
				return fmt.Errorf("Start %s: exit %d out %q", want, e.GetExitCode(), out.String())
			}
			break
		}
	}
	record("Start cat+stdin+EOF (32 clients)", time.Since(begin))
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// children are this process's child processes (the sessions' inits).
func children(t *testing.T) []string {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	var out []string
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// heldTempDirs are the ringfence-* directories this process holds open
// (privdir keeps each locked while its owner lives): its own, never
// another process's on this shared machine.
func heldTempDirs(t *testing.T) []string {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		l, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && strings.HasPrefix(filepath.Base(l), "ringfence-") {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
