package process

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
)

// Execute returns the first MaxExecuteOutput bytes of a stream, and the
// trailer says how many there were: cut, never silently.
func TestExecuteOutputBoundReported(t *testing.T) {
	h := newHarness(t)
	r, tr := h.execute(t, nil, "head", "-c", "2000000", "/dev/zero")
	if len(r.GetStdout()) != MaxExecuteOutput || r.GetExitCode() != 0 {
		t.Fatalf("stdout %d bytes, exit %d", len(r.GetStdout()), r.GetExitCode())
	}
	var o wire.Outcome
	if err := json.Unmarshal([]byte(tr.Get(wire.TrailerOutcome)[0]), &o); err != nil {
		t.Fatal(err)
	}
	if o.Truncated == nil || o.Truncated.Stdout != 2000000 || o.Truncated.Stderr != 0 {
		t.Fatalf("truncated %+v", o.Truncated)
	}
	// Below the bound nothing is said to be cut.
	_, tr = h.execute(t, nil, "head", "-c", "1000", "/dev/zero")
	var small wire.Outcome
	if err := json.Unmarshal([]byte(tr.Get(wire.TrailerOutcome)[0]), &small); err != nil || small.Truncated != nil {
		t.Fatalf("truncated %+v %v", small.Truncated, err)
	}
}

// A client that goes away takes its process with it: Start's and
// Execute's processes end when their call's context does.
func TestClientGoneEndsItsProcess(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	st, err := h.c.Start(ctx, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sleep", "300"}}})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := st.Recv(); err != nil || m.GetInit() == nil {
		t.Fatalf("%v %v", m, err)
	}
	ectx, ecancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer ecancel()
	_, err = h.c.Execute(ectx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"sleep", "300"}}})
	if codeOf(err) != codes.DeadlineExceeded {
		t.Fatalf("Execute past its deadline: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.liveCount() != 1 { // the Execute's is killed; the Start's runs on
		if time.Now().After(deadline) {
			t.Fatalf("%d processes live, want the Start one", h.liveCount())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	for h.liveCount() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d processes still live after their clients left", h.liveCount())
		}
		time.Sleep(20 * time.Millisecond)
	}
	h.srv.mu.Lock()
	ses := h.srv.ses
	h.srv.mu.Unlock()
	for _, p := range ses.Processes() {
		if p.Running() {
			t.Fatalf("process %v still runs in the session", p.Argv)
		}
	}
}

func (h *harness) liveCount() int {
	h.srv.mu.Lock()
	defer h.srv.mu.Unlock()
	return len(h.srv.live)
}
