package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/conformance"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/tools"
)

const loadSessions = 64

// loadCalls is the 2,000 calls; under the race detector, which
// slows every re-executed init several times over, a quarter of that (the
// same 64 sessions, so the same concurrency). RINGFENCE_LOAD_CALLS sets it.
func loadCalls() int {
	if n, err := strconv.Atoi(os.Getenv("RINGFENCE_LOAD_CALLS")); err == nil && n > 0 {
		return n
	}
	if raceEnabled {
		return 500
	}
	return 2000
}

// session is one agent's sandbox and tools; it writes only its own
// unique tokens, so a lost or cross-wired call shows as a wrong token.
type session struct {
	id    int
	local *ringfence.Local
	set   *tools.Set
	root  string
	last  string // the token last written
	lat   []time.Duration
}

// TestLoad: 64 concurrent sessions make 2,000 mixed calls (write_file,
// read_file, run_command, grep_files) through the tools; every call must
// get the right outcome with its own session's data, and nothing may be
// left on the host afterwards.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: not in -short")
	}
	testenv.Need(t, "a confining backend", conformance.LocalAvailable("auto"))
	t.Setenv("TMPDIR", t.TempDir())
	before := snapshot(t)
	t.Logf("supervisor pid %d", os.Getpid())
	sessions := make([]*session, loadSessions)
	for i := range sessions {
		sessions[i] = newSession(t, i)
	}
	calls := loadCalls()
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i, s := range sessions {
		n := calls / loadSessions
		if i < calls%loadSessions {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range n {
				if err := s.call(c); err != nil {
					errs <- fmt.Errorf("session %d call %d: %w", s.id, c, err)
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	failures := 0
	for err := range errs {
		if failures++; failures <= 10 {
			t.Error(err)
		}
	}
	if failures > 0 {
		t.Errorf("%d of %d calls had a wrong outcome", failures, calls)
	}
	logLatency(t, sessions, took)
	for _, s := range sessions {
		s.close(t)
	}
	assertNoLeaks(t, before)
}

func newSession(t *testing.T, id int) *session {
	root := t.TempDir()
	l, err := ringfence.New(conformance.LocalConfig(root, "auto"))
	if err != nil {
		t.Fatal(err)
	}
	return &session{id: id, local: l, set: tools.New(l, tools.Options{SessionID: fmt.Sprint("load-", id)}), root: root}
}

func (s *session) close(t *testing.T) {
	if err := s.local.Close(); err != nil {
		t.Errorf("session %d close: %v", s.id, err)
	}
}

// call makes the c-th call of the session: write, read, command, grep in
// turn, each checked against what this session wrote last.
func (s *session) call(c int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	op := c % 4
	if s.last == "" {
		op = 0
	}
	var args any
	var name string
	switch op {
	case 0:
		s.last = fmt.Sprintf("session%dcall%dtoken%d", s.id, c, time.Now().UnixNano())
		name, args = "write_file", map[string]string{"path": "notes/mine.txt", "content": s.last + "\n"}
	case 1:
		name, args = "read_file", map[string]string{"path": "notes/mine.txt"}
	case 2:
		name, args = "run_command", map[string]string{"command": "cat notes/mine.txt"}
	case 3:
		name, args = "grep_files", map[string]string{"pattern": "session[0-9]+call[0-9]+token", "path": "notes"}
	}
	raw, _ := json.Marshal(args)
	t0 := time.Now()
	res := s.set.Call(ctx, name, raw)
	s.lat = append(s.lat, time.Since(t0))
	return s.verify(name, res)
}

func (s *session) verify(name string, res tools.Result) error {
	if res.IsError || res.Outcome.Kind != outcome.OK {
		return fmt.Errorf("%s: outcome %s: %s", name, res.Outcome.Kind, firstLine(res.Text))
	}
	switch name {
	case "write_file":
		got, err := os.ReadFile(s.root + "/notes/mine.txt")
		if err != nil || string(got) != s.last+"\n" {
			return fmt.Errorf("write_file: the file holds %q (err %v), want this session's last token", got, err)
		}
	case "run_command":
		er, ok := res.Data.(*ringfence.ExecResult)
		if !ok || er.Stdout != s.last+"\n" {
			return fmt.Errorf("run_command: stdout is not this session's last token (%s)", firstLine(res.Text))
		}
	default:
		if !strings.Contains(res.Text, s.last) || strings.Count(res.Text, "token") != 1 {
			return fmt.Errorf("%s: the answer does not hold exactly this session's last token: %s", name, firstLine(res.Text))
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func logLatency(t *testing.T, sessions []*session, took time.Duration) {
	var all []time.Duration
	for _, s := range sessions {
		all = append(all, s.lat...)
	}
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	t.Logf("load: %d sessions, %d calls in %v: %.0f calls/s, p50 %v, p99 %v, max %v",
		len(sessions), len(all), took.Round(time.Millisecond), float64(len(all))/took.Seconds(),
		pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), all[len(all)-1].Round(time.Microsecond))
}
