package process

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/ringfence/ringfence/internal/sandbox"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
)

func TestExecuteEchoWithOutcomeTrailer(t *testing.T) {
	h := newHarness(t)
	r, tr := h.execute(t, nil, "echo", "hello")
	if r.GetExitCode() != 0 || string(r.GetStdout()) != "hello\n" || len(r.GetStderr()) != 0 {
		t.Fatalf("got %v", r)
	}
	if k := tr.Get(wire.TrailerKind); len(k) != 1 || k[0] != string(sandbox.KindSuccess) {
		t.Fatalf("trailer kind %v", k)
	}
	var o wire.Outcome
	if v := tr.Get(wire.TrailerOutcome); len(v) != 1 || json.Unmarshal([]byte(v[0]), &o) != nil {
		t.Fatalf("trailer outcome %v", v)
	}
	if o.Backend != h.backend || o.Narration == "" || o.ExitCode == nil || *o.ExitCode != 0 {
		t.Fatalf("outcome %+v", o)
	}
	// A failing command: its code, its stderr, and the kind says so.
	r, tr = h.execute(t, nil, "sh", "-c", "echo oops >&2; exit 3")
	if r.GetExitCode() != 3 || string(r.GetStderr()) != "oops\n" || tr.Get(wire.TrailerKind)[0] != string(sandbox.KindCommandFailure) {
		t.Fatalf("got %v %v", r, tr)
	}
	// The narration never names the host root: the workspace is /workspace.
	if strings.Contains(tr.Get(wire.TrailerOutcome)[0], h.root) {
		t.Fatalf("the outcome names the host root: %s", tr.Get(wire.TrailerOutcome)[0])
	}
}

func TestExecuteErrors(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)
	must(t, os.MkdirAll(filepath.Join(h.root, "sub/dir"), 0o755))
	must(t, os.WriteFile(filepath.Join(h.root, "file"), nil, 0o644))
	must(t, os.Symlink(t.TempDir(), filepath.Join(h.root, "out")))
	for _, c := range []struct {
		name string
		cfg  *pb.ProcessConfig
		want codes.Code
	}{
		{"no command", &pb.ProcessConfig{}, codes.InvalidArgument},
		{"empty program", &pb.ProcessConfig{Command: []string{""}}, codes.InvalidArgument},
		{"missing program", &pb.ProcessConfig{Command: []string{"no-such-program-k17a"}}, codes.NotFound},
		{"cwd ..", &pb.ProcessConfig{Command: []string{"pwd"}, Cwd: strp("..")}, codes.PermissionDenied},
		{"cwd /etc", &pb.ProcessConfig{Command: []string{"pwd"}, Cwd: strp("/etc")}, codes.PermissionDenied},
		{"cwd climbing", &pb.ProcessConfig{Command: []string{"pwd"}, Cwd: strp("sub/../../x")}, codes.PermissionDenied},
		{"cwd link out", &pb.ProcessConfig{Command: []string{"pwd"}, Cwd: strp("out")}, codes.PermissionDenied},
		{"cwd missing", &pb.ProcessConfig{Command: []string{"pwd"}, Cwd: strp("nope")}, codes.NotFound},
		{"cwd a file", &pb.ProcessConfig{Command: []string{"pwd"}, Cwd: strp("file")}, codes.FailedPrecondition},
		{"env name with =", &pb.ProcessConfig{Command: []string{"true"}, EnvVars: map[string]string{"A=B": "1"}}, codes.InvalidArgument},
	} {
		_, err := h.c.Execute(ctx, &pb.ExecuteRequest{Config: c.cfg})
		if codeOf(err) != c.want {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	// cwd inside, relative, absolute host path and /workspace path (the
	// landlock backend has no view: the command sees the host path).
	want := "/workspace/sub/dir"
	if h.backend == "landlock" {
		want = filepath.Join(h.root, "sub/dir")
	}
	for _, cwd := range []string{"sub/dir", filepath.Join(h.root, "sub/dir"), "/workspace/sub/dir"} {
		r, _ := h.execute(t, strp(cwd), "pwd")
		if strings.TrimSpace(string(r.GetStdout())) != want {
			t.Errorf("cwd %q: pwd %q", cwd, r.GetStdout())
		}
	}
	// The request's env reaches the command.
	r, err := h.c.Execute(ctx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "echo $GREETING"},
		EnvVars: map[string]string{"GREETING": "hi"}}})
	if err != nil || string(r.GetStdout()) != "hi\n" {
		t.Fatalf("env: %v %v", r, err)
	}
}

func TestStartStreamsInitOutputExit(t *testing.T) {
	h := newHarness(t)
	s := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "for i in 1 2 3; do echo $i; done; echo e >&2; exit 4"}}})
	code, ok := s.wait(t)
	if !ok || code != 4 || s.out.String() != "1\n2\n3\n" || s.errb.String() != "e\n" {
		t.Fatalf("exit %d %v out %q err %q", code, ok, s.out.String(), s.errb.String())
	}
	if k := s.stream.Trailer().Get(wire.TrailerKind); len(k) != 1 || k[0] != string(sandbox.KindCommandFailure) {
		t.Fatalf("trailer %v", s.stream.Trailer())
	}
	// Ended processes are forgotten: NOT_FOUND for every control call.
	ctx := ctxT(t)
	if _, err := h.c.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: s.id, Payload: &pb.WriteStdinRequest_Input{Input: []byte("x")}}); codeOf(err) != codes.NotFound {
		t.Errorf("WriteStdin after exit: %v", err)
	}
	if _, err := h.c.SendSignal(ctx, &pb.SendSignalRequest{ProcessId: 9999, Signal: pb.Signal_SIGNAL_SIGTERM}); codeOf(err) != codes.NotFound {
		t.Errorf("SendSignal unknown: %v", err)
	}
	if _, err := h.c.ResizeTTY(ctx, &pb.ResizeTTYRequest{ProcessId: 9999, Cols: 1, Rows: 1}); codeOf(err) != codes.NotFound {
		t.Errorf("ResizeTTY unknown: %v", err)
	}
}

func TestStartStdin(t *testing.T) {
	h := newHarness(t)
	ctx := ctxT(t)
	s := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "read a; echo got:$a; cat"}}})
	if _, err := h.c.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: s.id, Payload: &pb.WriteStdinRequest_Input{Input: []byte("one\n")}}); err != nil {
		t.Fatal(err)
	}
	s.readUntil(t, "got:one")
	if _, err := h.c.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: s.id, Payload: &pb.WriteStdinRequest_Input{Input: []byte("rest")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.c.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: s.id, Payload: &pb.WriteStdinRequest_Eof{Eof: &emptypb.Empty{}}}); err != nil {
		t.Fatal(err)
	}
	code, ok := s.wait(t)
	if !ok || code != 0 || s.out.String() != "got:one\nrest" {
		t.Fatalf("exit %d %v out %q", code, ok, s.out.String())
	}
	// ResizeTTY on a process without a terminal: FAILED_PRECONDITION.
	s = h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sleep", "30"}}})
	if _, err := h.c.ResizeTTY(ctx, &pb.ResizeTTYRequest{ProcessId: s.id, Cols: 100, Rows: 30}); codeOf(err) != codes.FailedPrecondition {
		t.Fatalf("ResizeTTY without a PTY: %v", err)
	}
	if _, err := h.c.SendSignal(ctx, &pb.SendSignalRequest{ProcessId: s.id, Signal: pb.Signal_SIGNAL_UNSPECIFIED}); codeOf(err) != codes.InvalidArgument {
		t.Fatalf("unspecified signal: %v", err)
	}
	if _, err := h.c.SendSignal(ctx, &pb.SendSignalRequest{ProcessId: s.id, Signal: pb.Signal_SIGNAL_SIGTERM}); err != nil {
		t.Fatal(err)
	}
	if code, ok := s.wait(t); !ok || code == 0 {
		t.Fatalf("after SIGTERM: exit %d %v", code, ok)
	}
	if sig := s.stream.Trailer().Get(wire.TrailerOutcome); len(sig) != 1 || !strings.Contains(sig[0], `"signal":"SIGTERM"`) {
		t.Fatalf("trailer %v", s.stream.Trailer())
	}
}

func TestStartPTYAndResize(t *testing.T) {
	h := newHarness(t)
	s := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "stty size && tty"}},
		Pty: &pb.PTY{Cols: 80, Rows: 24}})
	code, ok := s.wait(t)
	out := strings.ReplaceAll(s.out.String(), "\r", "")
	if !ok || code != 0 || !regexp.MustCompile(`^24 80\n/dev/pts/[0-9]+\n$`).MatchString(out) {
		t.Fatalf("exit %d %v out %q", code, ok, out)
	}
	ctx := ctxT(t)
	s = h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c",
		`trap 'echo "size $(stty size)"' WINCH; echo ready; while :; do sleep 0.05; done`}},
		Pty: &pb.PTY{Cols: 80, Rows: 24}})
	s.readUntil(t, "ready")
	if _, err := h.c.ResizeTTY(ctx, &pb.ResizeTTYRequest{ProcessId: s.id, Cols: 132, Rows: 50}); err != nil {
		t.Fatal(err)
	}
	s.readUntil(t, "size 50 132")
	// SIGKILL ends it: the exit code is -1, as for any signalled process.
	if _, err := h.c.SendSignal(ctx, &pb.SendSignalRequest{ProcessId: s.id, Signal: pb.Signal_SIGNAL_SIGKILL}); err != nil {
		t.Fatal(err)
	}
	if code, ok := s.wait(t); !ok || code != -1 {
		t.Fatalf("after SIGKILL: exit %d %v", code, ok)
	}
}

// The reference daemon's shutdown check: a Start of `sleep 300` ends with
// a non-zero exit once the server shuts down; a process that handles
// SIGTERM gets it first (its handler runs); one that ignores it is killed
// after the grace.
func TestShutdownTermsThenKills(t *testing.T) {
	h := newHarness(t)
	sleeper := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sleep", "300"}}})
	trapper := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c",
		`trap 'echo term; exit 7' TERM; echo ready; while :; do sleep 0.05; done`}}})
	trapper.readUntil(t, "ready")
	stubborn := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c",
		`trap '' TERM; echo ready; while :; do sleep 0.05; done`}}})
	stubborn.readUntil(t, "ready")
	begin := time.Now()
	done := make(chan struct{})
	go func() { h.srv.Shutdown(context.Background(), 2*time.Second); close(done) }()
	if code, ok := sleeper.wait(t); !ok || code == 0 {
		t.Fatalf("sleep 300 after shutdown: exit %d %v", code, ok)
	}
	if code, ok := trapper.wait(t); !ok || code != 7 || !strings.Contains(trapper.out.String(), "term") {
		t.Fatalf("TERM handler: exit %d %v out %q", code, ok, trapper.out.String())
	}
	code, ok := stubborn.wait(t)
	if !ok || code == 0 || time.Since(begin) < 1500*time.Millisecond {
		t.Fatalf("TERM-ignoring process: exit %d %v after %v", code, ok, time.Since(begin))
	}
	<-done
	// New work is refused once shutting down.
	_, err := h.c.Execute(ctxT(t), &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"true"}}})
	if codeOf(err) != codes.Unavailable {
		t.Fatalf("Execute after shutdown: %v", err)
	}
}

// A background server started by one call answers the next: the
// processes share the session's loopback.
func TestProcessesShareTheSession(t *testing.T) {
	h := newHarness(t)
	srv := h.start(t, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "echo shared > /tmp/k17a; echo ready; sleep 300"}}})
	srv.readUntil(t, "ready")
	r, _ := h.execute(t, nil, "cat", "/tmp/k17a")
	if string(r.GetStdout()) != "shared\n" {
		t.Fatalf("the session's /tmp is not shared: %q", r.GetStdout())
	}
}
