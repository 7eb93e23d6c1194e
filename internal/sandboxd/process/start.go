package process

import (
	"context"
	"sync"
	"syscall"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ringfence/ringfence/internal/sandbox"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// Start runs a command and streams InitEvent, its output as it comes, and
// ExitEvent, with ringfence's outcome in the trailer. Its stdin stays
// open for WriteStdin; with pty set it runs on a new pseudo-terminal
// (stdin, stdout and stderr all on it; the output arrives as stdout).
// A client that ends the stream ends its process (SIGKILL to its group).
func (s *Server) Start(req *pb.StartRequest, stream pb.ProcessService_StartServer) error {
	c, err := s.cmdOf(req.GetConfig())
	if err != nil {
		return err
	}
	ctx := stream.Context()
	sink := &streamSink{send: stream.Send, gate: make(chan struct{}), chunk: s.o.ChunkSize}
	c.Stdout, c.Stderr = sinkWriter{sink, false}, sinkWriter{sink, true}
	if pt := req.Pty; pt != nil {
		size := sandbox.WindowSize{Rows: clamp16(pt.GetRows()), Cols: clamp16(pt.GetCols())}
		c.Terminal = &size // a zero size is 24x80
	}
	p, err := s.start(ctx, c)
	if err != nil {
		sink.close()
		return err
	}
	if err := neverRan(p); err != nil {
		sink.close()
		s.forget(p, 0)
		return err
	}
	id := s.register(p, c.Terminal != nil)
	defer s.forget(p, id)
	// InitEvent first: output written meanwhile waits at the gate.
	sink.mu.Lock()
	err = stream.Send(&pb.StartResponse{Event: &pb.StartResponse_Init{Init: &pb.InitEvent{ProcessId: id}}})
	sink.failed = err != nil
	close(sink.gate)
	sink.mu.Unlock()
	if err != nil {
		_ = p.Signal(syscall.SIGKILL)
		<-p.Done()
		sink.close()
		return status.Errorf(codes.Unavailable, "sending InitEvent: %v", err)
	}
	select {
	case <-p.Done():
	case <-ctx.Done():
		_ = p.Signal(syscall.SIGKILL)
	}
	r, err := p.Wait(context.Background()) // reads what is left (a short grace)
	sink.close()
	if err != nil {
		return status.Errorf(codes.Internal, "%v", err)
	}
	if ctx.Err() != nil {
		return status.FromContextError(ctx.Err()).Err()
	}
	stream.SetTrailer(trailer(r, nil))
	return stream.Send(&pb.StartResponse{Event: &pb.StartResponse_Exit{Exit: &pb.ExitEvent{ExitCode: exitCode(r)}}})
}

func clamp16(v uint32) uint16 {
	if v > 0xffff {
		return 0xffff
	}
	return uint16(v)
}

// streamSink turns a process's output into stream events: one sender at a
// time (a gRPC stream is not safe for concurrent sends), nothing before
// the InitEvent (gate), nothing after close (a background child may hold
// the output open past the ExitEvent; it is never sent on a finished
// stream). A client too slow to read holds the writer, and so the
// process's output pipe: flow control reaches the process, memory does not
// grow.
type streamSink struct {
	mu     sync.Mutex
	send   func(*pb.StartResponse) error
	gate   chan struct{}
	chunk  int
	failed bool // a send failed or the stream is over
}

// close ends sending for good.
func (k *streamSink) close() {
	k.mu.Lock()
	k.failed = true
	select {
	case <-k.gate:
	default:
		close(k.gate)
	}
	k.mu.Unlock()
}

type sinkWriter struct {
	k      *streamSink
	stderr bool
}

func (w sinkWriter) Write(b []byte) (int, error) {
	<-w.k.gate
	n := len(b)
	for len(b) > 0 {
		part := b[:min(len(b), w.k.chunk)]
		b = b[len(part):]
		ev := &pb.StartResponse{}
		chunk := append([]byte(nil), part...)
		if w.stderr {
			ev.Event = &pb.StartResponse_Stderr{Stderr: chunk}
		} else {
			ev.Event = &pb.StartResponse_Stdout{Stdout: chunk}
		}
		w.k.mu.Lock()
		if !w.k.failed {
			w.k.failed = w.k.send(ev) != nil
		}
		w.k.mu.Unlock()
	}
	return n, nil // never fails: the session keeps its own copy regardless
}
