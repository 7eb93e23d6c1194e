package sandbox

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowWriter is a live output writer that takes its time, as a Start
// stream's slow client or a descheduled goroutine on a loaded host does.
type slowWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
	d   time.Duration
}

func (w *slowWriter) Write(b []byte) (int, error) {
	time.Sleep(w.d)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

func (w *slowWriter) String() string { w.mu.Lock(); defer w.mu.Unlock(); return w.buf.String() }

// TestSessionWaitKeepsOutputWrittenBeforeExit: what a process wrote before
// it exited is in Wait's result and reaches the live writer, however late
// its output is read — found by the fleet load run (issue 17), where an
// Execute under load came back with its exit code and no output: Wait
// stopped reading 200 ms after the exit, not 200 ms after the pipe ran
// dry. Here the live writer holds the reader 600 ms after the first byte,
// while the process writes the second and exits.
func TestSessionWaitKeepsOutputWrittenBeforeExit(t *testing.T) {
	_, s := newSession(t)
	live := &slowWriter{d: 600 * time.Millisecond}
	c := sh("printf a; sleep 0.1; printf b; printf c >&2")
	c.Stdout = live
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := s.Start(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "ab" || res.Stderr != "c" || live.String() != "ab" {
		t.Fatalf("stdout %q stderr %q live %q, want ab, c, ab (all written before the exit)", res.Stdout, res.Stderr, live.String())
	}
}

// TestSessionWaitNotHeldByBackgroundChild: a background child that keeps
// the output open, writing on, holds Wait no longer than the grace.
func TestSessionWaitNotHeldByBackgroundChild(t *testing.T) {
	_, s := newSession(t)
	begin := time.Now()
	res := runIn(t, s, sh("(while :; do echo tick; sleep 0.05; done) & echo started"))
	if took := time.Since(begin); took > 5*time.Second {
		t.Fatalf("Wait took %v with a background writer", took)
	}
	if !strings.Contains(res.Stdout, "started\n") { // the ticks may come first
		t.Fatalf("stdout %q", res.Stdout)
	}
}
