package process

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"runtime"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
)

// TestAttackStdinAbandonedWrites: a client writes a full-size chunk to a
// process that never reads its stdin, with a short deadline, again and
// again. Every call ends (DEADLINE_EXCEEDED) but must not leave its write
// behind: before the fix each abandoned write kept a goroutine and its
// 1 MiB chunk until the process read or ended, so sequential calls — no
// concurrency, nothing held open by the client — grew the server without
// bound. The control is the first call: it really blocks (the pipe is
// full), so the attack's premise holds.
func TestAttackStdinAbandonedWrites(t *testing.T) {
	h := newHarness(t)
	s := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sleep", "120"}}})
	chunk := make([]byte, wire.MaxStdinChunk)
	write := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := h.c.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: s.id, Payload: &pb.WriteStdinRequest_Input{Input: chunk}})
		return err
	}
	// Control: 1 MiB does not fit a pipe (64 KiB) the process never reads.
	if err := write(); codeOf(err) != codes.DeadlineExceeded {
		t.Fatalf("control: a 1 MiB write to a process that never reads: %v, want DEADLINE_EXCEEDED", err)
	}
	before := heapInUse()
	const calls = 48
	for i := range calls {
		if err := write(); codeOf(err) != codes.DeadlineExceeded {
			t.Fatalf("call %d: %v, want DEADLINE_EXCEEDED", i, err)
		}
	}
	grew := int64(heapInUse()) - int64(before)
	t.Logf("heap grew by %d KiB over %d abandoned 1 MiB writes", grew>>10, calls)
	if grew > 8<<20 { // the leak holds calls × 1 MiB; a bound holds at most one
		t.Fatalf("the server kept %d MiB after %d abandoned writes: each left its chunk behind", grew>>20, calls)
	}
	// The process still gets input once it reads: the one pending write
	// is not lost (a reader drains it) and new writes work.
	if _, err := h.c.SendSignal(ctxT(t), &pb.SendSignalRequest{ProcessId: s.id, Signal: pb.Signal_SIGNAL_SIGKILL}); err != nil {
		t.Fatal(err)
	}
	s.wait(t)
}

// TestStdinWritesInOrder: writes that were not abandoned keep their
// order, and a write waiting behind a slow one still lands (the gate
// serialises, it does not drop).
func TestStdinWritesInOrder(t *testing.T) {
	h := newHarness(t)
	s := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "sleep 1; head -c 200000 | md5sum"}}})
	ctx := ctxT(t)
	want := make([]byte, 0, 200000)
	for i := range 4 {
		b := make([]byte, 50000)
		for j := range b {
			b[j] = byte('a' + i)
		}
		want = append(want, b...)
		if _, err := h.c.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: s.id, Payload: &pb.WriteStdinRequest_Input{Input: b}}); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	code, ok := s.wait(t)
	if !ok || code != 0 {
		t.Fatalf("exit %d (ok %v), stderr %q", code, ok, s.errb.String())
	}
	if got, exp := s.out.String(), md5hex(want)+"  -\n"; got != exp {
		t.Fatalf("md5sum of the input: %q, want %q", got, exp)
	}
}

func heapInUse() uint64 {
	var m runtime.MemStats
	for range 2 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func md5hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// TestAttackStdinHeldByBackgroundChild: the process ends while its write
// is blocked, but a background child it left keeps the pipe open and never
// reads. The call ends (the process did), and the write must not live on
// with its chunk for as long as the child does: the server closes its end
// of the pipe when the process ends, which ends the write. Each round
// leaves a sleeping child, as an attacker would.
func TestAttackStdinHeldByBackgroundChild(t *testing.T) {
	h := newHarness(t)
	chunk := make([]byte, wire.MaxStdinChunk)
	before := heapInUse()
	const rounds = 16
	for i := range rounds {
		s := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "(sleep 60 &); sleep 0.3"}}})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := h.c.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: s.id, Payload: &pb.WriteStdinRequest_Input{Input: chunk}})
		cancel()
		if c := codeOf(err); c != codes.FailedPrecondition && c != codes.NotFound {
			t.Fatalf("round %d: %v, want FAILED_PRECONDITION (the process ended before reading)", i, err)
		}
		s.wait(t)
	}
	grew := int64(heapInUse()) - int64(before)
	t.Logf("heap grew by %d KiB over %d rounds", grew>>10, rounds)
	if grew > 6<<20 {
		t.Fatalf("the server kept %d MiB after %d writes to ended processes: each left its chunk behind", grew>>20, rounds)
	}
}
