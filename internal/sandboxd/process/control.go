package process

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ringfence/ringfence/internal/sandbox"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
)

// WriteStdin sends bytes, or end-of-file, to a running process of Start.
func (s *Server) WriteStdin(ctx context.Context, req *pb.WriteStdinRequest) (*pb.WriteStdinResponse, error) {
	e, err := s.running(req.GetProcessId())
	if err != nil {
		return nil, err
	}
	if req.GetEof() != nil {
		if err := e.p.CloseStdin(); err != nil {
			return nil, status.Errorf(codes.FailedPrecondition, "closing stdin: %v", err)
		}
		return &pb.WriteStdinResponse{}, nil
	}
	in := req.GetInput()
	if len(in) > wire.MaxStdinChunk {
		return nil, status.Errorf(codes.InvalidArgument, "input: more than %d bytes in one call", wire.MaxStdinChunk)
	}
	if len(in) == 0 {
		return &pb.WriteStdinResponse{}, nil
	}
	// A process that does not read its stdin would block the write until
	// its pipe has room: the call's own context bounds that wait, and the
	// gate keeps one write per process in flight (stdin.go).
	switch err := e.stdin.write(ctx, e.p, in); {
	case err == nil:
		return &pb.WriteStdinResponse{}, nil
	case err == errEnded:
		return nil, status.Errorf(codes.FailedPrecondition, "process %d ended before reading its input", req.GetProcessId())
	case ctx.Err() != nil && err == ctx.Err():
		return nil, status.FromContextError(err).Err()
	default:
		return nil, status.Errorf(codes.FailedPrecondition, "writing stdin: %v", err)
	}
}

// SendSignal signals a running process's group.
func (s *Server) SendSignal(_ context.Context, req *pb.SendSignalRequest) (*pb.SendSignalResponse, error) {
	sig, ok := wire.Signal(req.GetSignal())
	if !ok {
		return nil, status.Errorf(codes.InvalidArgument, "signal %v is not one of SIGINT, SIGTERM, SIGKILL", req.GetSignal())
	}
	e, err := s.running(req.GetProcessId())
	if err != nil {
		return nil, err
	}
	if err := e.p.Signal(sig); err != nil {
		return nil, status.Errorf(codes.NotFound, "process %d: %v", req.GetProcessId(), err)
	}
	return &pb.SendSignalResponse{}, nil
}

// ResizeTTY changes the window size of a process's terminal.
func (s *Server) ResizeTTY(_ context.Context, req *pb.ResizeTTYRequest) (*pb.ResizeTTYResponse, error) {
	e, err := s.running(req.GetProcessId())
	if err != nil {
		return nil, err
	}
	if !e.tty {
		return nil, status.Errorf(codes.FailedPrecondition, "process %d has no terminal", req.GetProcessId())
	}
	if req.GetCols() == 0 || req.GetRows() == 0 {
		return nil, status.Error(codes.InvalidArgument, "cols and rows must be positive")
	}
	size := sandbox.WindowSize{Rows: clamp16(req.GetRows()), Cols: clamp16(req.GetCols())}
	if err := e.p.Resize(size); err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "resizing: %v", err)
	}
	return &pb.ResizeTTYResponse{}, nil
}

// running is the process id names, while it runs.
func (s *Server) running(id int32) (*entry, error) {
	e, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	if !e.p.Running() {
		return nil, status.Errorf(codes.NotFound, "process %d is not running", id)
	}
	return e, nil
}
