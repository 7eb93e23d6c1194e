package process

import (
	"context"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/ringfence/ringfence/internal/sandbox"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// harness is a ProcessService on loopback over a linux-backend sandbox,
// or the backend RF_PROCESS_BACKEND names (landlock_linux_test.go reruns
// tests so).
type harness struct {
	root    string
	backend string
	srv     *Server
	c       pb.ProcessServiceClient
	gs      *grpc.Server
	// close tears everything down (also at the test's end); safe twice.
	close func()
}

func newHarness(t testing.TB, mutate ...func(*policy.Defaults)) *harness {
	t.Helper()
	root := t.TempDir()
	d := policy.AgentDefaults()
	for _, m := range mutate {
		m(&d)
	}
	backend := harnessBackend()
	sb, err := sandbox.New(sandbox.Config{Root: root, MountPath: "/workspace", Backend: backend, Defaults: d})
	if err != nil {
		testenv.Need(t, "the "+backend+" backend", err)
	}
	srv, err := New(Options{Sandbox: sb, Root: root, MountPath: "/workspace"})
	if err != nil {
		sb.Close()
		testenv.Need(t, "the "+backend+" backend", err)
	}
	if err := srv.Warm(context.Background()); err != nil {
		testenv.Need(t, "a "+backend+"-backend session", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	pb.RegisterProcessServiceServer(gs, srv)
	go func() { _ = gs.Serve(ln) }()
	conn, err := grpc.NewClient(ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	closeAll := func() {
		once.Do(func() {
			conn.Close()
			srv.Shutdown(context.Background(), time.Second)
			gs.Stop()
			sb.Close()
		})
	}
	t.Cleanup(closeAll)
	return &harness{root: root, backend: backend, srv: srv, c: pb.NewProcessServiceClient(conn), gs: gs, close: closeAll}
}

// harnessBackend is the backend harnesses use: linux, or RF_PROCESS_BACKEND.
func harnessBackend() string {
	if b := os.Getenv("RF_PROCESS_BACKEND"); b != "" {
		return b
	}
	return "linux"
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// execute runs argv with Execute and returns the response and trailer.
func (h *harness) execute(t *testing.T, cwd *string, argv ...string) (*pb.ExecuteResponse, metadata.MD) {
	t.Helper()
	var tr metadata.MD
	r, err := h.c.Execute(ctxT(t), &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: argv, Cwd: cwd}}, grpc.Trailer(&tr))
	if err != nil {
		t.Fatalf("Execute %q: %v", argv, err)
	}
	return r, tr
}

// started is one Start stream being read.
type started struct {
	id     int32
	stream pb.ProcessService_StartClient
	out    strings.Builder
	errb   strings.Builder
}

func (h *harness) start(t *testing.T, req *pb.StartRequest) *started {
	t.Helper()
	st, err := h.c.Start(ctxT(t), req)
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.Recv()
	if err != nil {
		t.Fatalf("Start %q: first event: %v", req.GetConfig().GetCommand(), err)
	}
	if m.GetInit() == nil || m.GetInit().GetProcessId() <= 0 {
		t.Fatalf("first event is not an InitEvent: %v", m)
	}
	return &started{id: m.GetInit().GetProcessId(), stream: st}
}

// wait reads the stream to its end: the exit code (ok=false without an
// ExitEvent) and the stream's final error (nil after a clean end).
func (s *started) wait(t *testing.T) (code int32, ok bool) {
	t.Helper()
	for {
		m, err := s.stream.Recv()
		if err == io.EOF {
			return code, ok
		}
		if err != nil {
			t.Fatalf("stream: %v", err)
		}
		switch {
		case m.GetInit() != nil:
			t.Fatalf("a second InitEvent: %v", m)
		case m.GetExit() != nil:
			if ok {
				t.Fatal("a second ExitEvent")
			}
			code, ok = m.GetExit().GetExitCode(), true
		case ok:
			t.Fatalf("output after the ExitEvent: %v", m)
		default:
			s.out.Write(m.GetStdout())
			s.errb.Write(m.GetStderr())
		}
	}
}

// readUntil reads stdout events until want appears.
func (s *started) readUntil(t *testing.T, want string) {
	t.Helper()
	for !strings.Contains(s.out.String(), want) {
		m, err := s.stream.Recv()
		if err != nil {
			t.Fatalf("stream ended before %q (got %q): %v", want, s.out.String(), err)
		}
		s.out.Write(m.GetStdout())
		s.errb.Write(m.GetStderr())
		if m.GetExit() != nil {
			t.Fatalf("exited before %q (got %q)", want, s.out.String())
		}
	}
}

func codeOf(err error) codes.Code { return status.Code(err) }

func strp(s string) *string { return &s }
