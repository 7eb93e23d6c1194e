package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ringfence/ringfence/internal/sandbox"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/outcome"
)

// cmdOf checks a ProcessConfig and makes the session Cmd (without I/O).
func (s *Server) cmdOf(c *pb.ProcessConfig) (sandbox.Cmd, error) {
	argv := c.GetCommand()
	if len(argv) == 0 || argv[0] == "" {
		return sandbox.Cmd{}, status.Error(codes.InvalidArgument, "config.command is required")
	}
	size := 0
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			return sandbox.Cmd{}, status.Error(codes.InvalidArgument, "config.command holds a NUL byte")
		}
		size += len(a)
	}
	env := c.GetEnvVars()
	if len(env) > maxEnvVars {
		return sandbox.Cmd{}, status.Errorf(codes.InvalidArgument, "config.env_vars: more than %d variables", maxEnvVars)
	}
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.IndexByte(v, 0) >= 0 {
			return sandbox.Cmd{}, status.Errorf(codes.InvalidArgument, "config.env_vars: invalid variable %q", k)
		}
		size += len(k) + len(v)
	}
	if size > maxArgBytes {
		return sandbox.Cmd{}, status.Errorf(codes.InvalidArgument, "config: command and environment exceed %d bytes", maxArgBytes)
	}
	rel, err := cwdModelPath(c.GetCwd(), s.o.Root, s.o.MountPath)
	if err == nil {
		err = checkCwd(s.o.Root, rel)
	}
	switch {
	case errors.Is(err, errCwdOutside):
		return sandbox.Cmd{}, status.Errorf(codes.PermissionDenied, "cwd %q: %v", c.GetCwd(), err)
	case errors.Is(err, errCwdMissing):
		return sandbox.Cmd{}, status.Errorf(codes.NotFound, "cwd %q: %v", c.GetCwd(), err)
	case errors.Is(err, errCwdNotDir):
		return sandbox.Cmd{}, status.Errorf(codes.FailedPrecondition, "cwd %q: %v", c.GetCwd(), err)
	case err != nil:
		return sandbox.Cmd{}, status.Errorf(codes.Internal, "cwd: %v", err)
	}
	timeout := s.o.Timeout
	if timeout <= 0 {
		timeout = -1 // none: Start serves long-running processes
	}
	return sandbox.Cmd{Argv: append([]string(nil), argv...), Dir: rel, Env: env, Timeout: timeout}, nil
}

// neverRan is the status for a process the session could not execute
// (Wait's result says why), as the reference daemon maps exec errors:
// a missing program is NOT_FOUND, one it may not execute PERMISSION_DENIED.
func neverRan(p *sandbox.Process) error {
	select {
	case <-p.Done():
	default:
		return nil
	}
	if p.Pid() != 0 {
		return nil
	}
	r, err := p.Wait(context.Background())
	if err != nil {
		return status.Errorf(codes.Internal, "%v", err)
	}
	code := codes.Internal
	switch {
	case r.Outcome.Kind == outcome.NotFound:
		code = codes.NotFound
	case r.Kind == sandbox.KindDenied, r.ExitCode != nil && *r.ExitCode == 126:
		code = codes.PermissionDenied
	case r.ExitCode != nil && *r.ExitCode == 127:
		code = codes.NotFound
	}
	st := status.New(code, fmt.Sprintf("the command did not start: %s", r.Narration))
	return st.Err()
}

// Execute runs a command to its end, its stdin empty, and returns its
// output (the first MaxExecuteOutput bytes of each stream; the trailer
// says when more was cut).
func (s *Server) Execute(ctx context.Context, req *pb.ExecuteRequest) (*pb.ExecuteResponse, error) {
	c, err := s.cmdOf(req.GetConfig())
	if err != nil {
		return nil, err
	}
	out, errb := &capBuf{max: MaxExecuteOutput}, &capBuf{max: MaxExecuteOutput}
	c.Stdin, c.Stdout, c.Stderr = bytes.NewReader(nil), out, errb
	p, err := s.start(ctx, c)
	if err != nil {
		return nil, err
	}
	defer s.forget(p, 0)
	if err := neverRan(p); err != nil {
		return nil, err
	}
	select {
	case <-p.Done():
	case <-ctx.Done(): // the client went away: so does its command
		_ = p.Signal(syscall.SIGKILL)
	}
	r, err := p.Wait(context.Background())
	if err != nil {
		return nil, status.Errorf(codes.Internal, "%v", err)
	}
	if ctx.Err() != nil {
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	var cut *sandbox.Truncated
	if out.seen > int64(out.max) || errb.seen > int64(errb.max) {
		cut = &sandbox.Truncated{}
		if out.seen > int64(out.max) {
			cut.Stdout = out.seen
		}
		if errb.seen > int64(errb.max) {
			cut.Stderr = errb.seen
		}
	}
	_ = grpc.SetTrailer(ctx, trailer(r, cut))
	return &pb.ExecuteResponse{ExitCode: exitCode(r), Stdout: out.bytes(), Stderr: errb.bytes()}, nil
}

// capBuf keeps the first max bytes written and counts them all.
type capBuf struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	seen int64
}

func (b *capBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seen += int64(len(p))
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *capBuf) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf...)
}
