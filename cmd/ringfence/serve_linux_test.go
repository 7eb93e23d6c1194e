package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/internal/testenv/serveproc"
)

// grpcurlVersion is the grpcurl the tests run (installed with go install
// into a cache beside the Go caches when none is on PATH).
const grpcurlVersion = "v1.9.4"

// serveProc is `ringfence serve …` running in this process.
type serveProc struct {
	grpc, rest string // host:port
	stderr     *testenv.LockedBuffer
	stop       func() error
}

func startServe(t *testing.T, args ...string) *serveProc {
	t.Helper()
	needBackend(t, "linux")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user policy file
	cmd := newServeCmd()
	cmd.SetArgs(append([]string{"--grpc-port", "0", "--rest-port", "0", "--backend", "linux"}, args...))
	s := &serveProc{stderr: &testenv.LockedBuffer{}}
	cmd.SetErr(s.stderr)
	cmd.SetOut(io.Discard)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	var once sync.Once
	var stopErr error
	s.stop = func() error {
		once.Do(func() { cancel(); stopErr = <-done })
		return stopErr
	}
	t.Cleanup(func() { _ = s.stop() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if g, r, ok := serveproc.Addrs(s.stderr.String()); ok {
			s.grpc, s.rest = g, r
			return s
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v\n%s", err, s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", s.stderr.String())
		}
	}
}

// grpcurl finds or installs grpcurl at grpcurlVersion.
func grpcurl(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("grpcurl"); err == nil {
		return p
	}
	bin := filepath.Join(realHome, ".cache", "ringfence-test-tools", "grpcurl-"+grpcurlVersion)
	exe := filepath.Join(bin, "grpcurl")
	if _, err := os.Stat(exe); err == nil {
		return exe
	}
	gobin, err := exec.LookPath("go")
	testenv.Need(t, "the go command (to install grpcurl)", err)
	c := exec.Command(gobin, "install", "github.com/fullstorydev/grpcurl/cmd/grpcurl@"+grpcurlVersion)
	c.Env = append(os.Environ(), "HOME="+realHome, "GOBIN="+bin, "GOFLAGS=")
	if out, err := c.CombinedOutput(); err != nil {
		testenv.Need(t, "grpcurl "+grpcurlVersion, &installError{string(out)})
	}
	return exe
}

type installError struct{ out string }

func (e *installError) Error() string { return "go install grpcurl: " + e.out }

// userGuideGRPC is the grpcurl block of agent-sandbox's
// packages/sandboxd/USER_GUIDE.md ("grpcurl (ProcessService)"), as printed
// there; only the address is replaced by the test server's.
const userGuideGRPC = `# Synchronous execution
grpcurl -plaintext -d '{"config":{"command":["echo","hello"]}}' \
  localhost:9090 process.v1.ProcessService/Execute

# Streaming execution: watch InitEvent → stdout chunks → ExitEvent
grpcurl -plaintext -d '{"config":{"command":["sh","-c","for i in 1 2 3; do echo $i; sleep 1; done"]}}' \
  localhost:9090 process.v1.ProcessService/Start

# PTY execution: stty and tty only succeed with a real terminal attached,
# so this verifies genuine PTY allocation (expect "24 80" and /dev/pts/N)
grpcurl -plaintext \
  -d '{"config":{"command":["sh","-c","stty size && tty"]},"pty":{"cols":80,"rows":24}}' \
  localhost:9090 process.v1.ProcessService/Start
`

// splitExamples are the block's commands (continuation lines joined).
func splitExamples(block string) []string {
	var cmds []string
	var cur strings.Builder
	for _, line := range strings.Split(block, "\n") {
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur.WriteString(strings.TrimSuffix(line, "\\"))
			continue
		}
		cur.WriteString(line)
		cmds = append(cmds, cur.String())
		cur.Reset()
	}
	return cmds
}

// jsonObjects decodes grpcurl's output: one JSON object per message.
func jsonObjects(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	var objs []map[string]any
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("grpcurl output: %v\n%s", err, out)
		}
		objs = append(objs, m)
	}
	return objs
}

func b64(t *testing.T, v any) string {
	s, _ := v.(string)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("not base64: %v", v)
	}
	return string(b)
}

// The USER_GUIDE's grpcurl examples, run as printed by an unmodified
// grpcurl (through server reflection: no .proto given) against
// `ringfence serve --root-dir DIR`.
func TestServeUserGuideGRPCExamples(t *testing.T) {
	s := startServe(t, "--root-dir", t.TempDir())
	gc := grpcurl(t)
	cmds := splitExamples(userGuideGRPC)
	if len(cmds) != 3 {
		t.Fatalf("%d examples", len(cmds))
	}
	var outs [][]map[string]any
	for _, line := range cmds {
		line = strings.Replace(line, "localhost:9090", s.grpc, 1)
		c := exec.Command("sh", "-c", line)
		c.Env = append(os.Environ(), "PATH="+filepath.Dir(gc)+":"+os.Getenv("PATH"))
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		outs = append(outs, jsonObjects(t, out))
	}
	// Execute: {"stdout": "aGVsbG8K"} (exit code 0 is proto3's default, omitted).
	if len(outs[0]) != 1 || b64(t, outs[0][0]["stdout"]) != "hello\n" || outs[0][0]["exitCode"] != nil {
		t.Fatalf("Execute: %v", outs[0])
	}
	// Start: init, three stdout chunks, exit.
	ev := outs[1]
	var text strings.Builder
	for _, m := range ev[1 : len(ev)-1] {
		text.WriteString(b64(t, m["stdout"]))
	}
	if ev[0]["init"] == nil || ev[len(ev)-1]["exit"] == nil || text.String() != "1\n2\n3\n" {
		t.Fatalf("Start: %v", ev)
	}
	// PTY: "24 80" and /dev/pts/N.
	ev = outs[2]
	text.Reset()
	for _, m := range ev[1 : len(ev)-1] {
		text.WriteString(b64(t, m["stdout"]))
	}
	out := strings.ReplaceAll(text.String(), "\r", "")
	if ev[0]["init"] == nil || !regexp.MustCompile(`^24 80\n/dev/pts/[0-9]+\n$`).MatchString(out) {
		t.Fatalf("PTY: %q in %v", out, ev)
	}
	if exit, _ := ev[len(ev)-1]["exit"].(map[string]any); exit == nil || exit["exitCode"] != nil {
		t.Fatalf("PTY exit: %v", ev[len(ev)-1])
	}
	// list and describe read nothing but server reflection.
	lout, err := exec.Command(gc, "-plaintext", s.grpc, "list").Output()
	if err != nil || !strings.Contains(string(lout), "process.v1.ProcessService\n") || !strings.Contains(string(lout), "grpc.reflection.v1.ServerReflection\n") {
		t.Fatalf("grpcurl list: %v\n%s", err, lout)
	}
	dout, err := exec.Command(gc, "-plaintext", s.grpc, "describe", "process.v1.ProcessService").Output()
	if err != nil || !strings.Contains(string(dout), "rpc Start ( .process.v1.StartRequest ) returns ( stream .process.v1.StartResponse );") {
		t.Fatalf("grpcurl describe: %v\n%s", err, dout)
	}
	// grpcurl -v shows ringfence's outcome among the trailers.
	c := exec.Command(gc, "-plaintext", "-v", "-d", `{"config":{"command":["true"]}}`, s.grpc, "process.v1.ProcessService/Execute")
	vout, err := c.Output()
	if err != nil || !strings.Contains(string(vout), "ringfence-kind: success") {
		t.Fatalf("trailers: %v\n%s", err, vout)
	}
}

// Health is 200, then 503 from the moment shutdown begins while processes
// get their grace; a Start of `sleep 300` ends with a non-zero exit.
func TestServeShutdown(t *testing.T) {
	s := startServe(t, "--root-dir", t.TempDir(), "--shutdown-timeout", "2s")
	health := func() int {
		r, err := http.Get("http://" + s.rest + "/v1/health")
		if err != nil {
			return 0
		}
		r.Body.Close()
		return r.StatusCode
	}
	if h := health(); h != http.StatusOK {
		t.Fatalf("health %d", h)
	}
	conn, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := pb.NewProcessServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sleeper, err := cl.Start(ctx, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sleep", "300"}}})
	if err != nil {
		t.Fatal(err)
	}
	stubborn, err := cl.Start(ctx, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []pb.ProcessService_StartClient{sleeper, stubborn} {
		if m, err := st.Recv(); err != nil || m.GetInit() == nil {
			t.Fatalf("first event: %v %v", m, err)
		}
	}
	if m, err := stubborn.Recv(); err != nil || !strings.Contains(string(m.GetStdout()), "ready") {
		t.Fatalf("stubborn: %v %v", m, err)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- s.stop() }()
	exitOf := func(st pb.ProcessService_StartClient) (int32, bool) {
		for {
			m, err := st.Recv()
			if err != nil {
				return 0, false
			}
			if e := m.GetExit(); e != nil {
				return e.GetExitCode(), true
			}
		}
	}
	if code, ok := exitOf(sleeper); !ok || code == 0 {
		t.Fatalf("sleep 300 after shutdown: exit %d, ExitEvent %v", code, ok)
	}
	// The TERM-ignoring process holds the grace open: health is 503 now.
	if h := health(); h != http.StatusServiceUnavailable {
		t.Fatalf("health during shutdown: %d", h)
	}
	if code, ok := exitOf(stubborn); !ok || code == 0 {
		t.Fatalf("stubborn after shutdown: exit %d, ExitEvent %v", code, ok)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("serve: %v\n%s", err, s.stderr.String())
	}
}

func TestServeListenRules(t *testing.T) {
	root := t.TempDir()
	for _, args := range [][]string{
		{"--listen", "0.0.0.0"},
		{"--listen", "::"},
		{"--root", root},
		{"--grpc-port", "9999", "--rest-port", "9999"},
		{"--tls-cert", "x.pem"},
	} {
		code, _, errOut := cli(t, "", "", append([]string{"serve", "--root-dir", root}, args...)...)
		if code != exitUsage {
			t.Errorf("serve %v: exit %d, want %d (%s)", args, code, exitUsage, errOut)
		}
	}
	// A backend without sessions (bwrap) cannot serve processes: refused
	// at start, with the reason, never a server that fails every call.
	// (landlock has one-shot sessions: serve_landlock_linux_test.go.)
	code, _, errOut := cli(t, "", "", "serve", "--root-dir", root, "--grpc-port", "0", "--rest-port", "0", "--backend", "bwrap")
	if code != exitUnavailable || !strings.Contains(errOut, "needs sessions") {
		t.Errorf("serve --backend bwrap: exit %d: %s", code, errOut)
	}
	// With a token, any interface: every call needs it, but /v1/health.
	tok := filepath.Join(t.TempDir(), "token")
	must(t, os.WriteFile(tok, []byte("0123456789abcdef0123456789abcdef\n"), 0o600))
	s := startServe(t, "--root-dir", root, "--listen", "0.0.0.0", "--token-file", tok)
	grpcAddr := strings.Replace(s.grpc, "0.0.0.0", "127.0.0.1", 1)
	restAddr := strings.Replace(s.rest, "0.0.0.0", "127.0.0.1", 1)
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := pb.NewProcessServiceClient(conn)
	req := &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"true"}}}
	if _, err := cl.Execute(context.Background(), req); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("without the token: %v", err)
	}
	bad := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer wrong-token-wrong-token")
	if _, err := cl.Execute(bad, req); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("with a wrong token: %v", err)
	}
	good := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer 0123456789abcdef0123456789abcdef")
	if _, err := cl.Execute(good, req); err != nil {
		t.Fatalf("with the token: %v", err)
	}
	if r, err := http.Get("http://" + restAddr + "/v1/health"); err != nil || r.StatusCode != 200 {
		t.Fatalf("health without the token: %v %v", r, err)
	}
	if r, err := http.Get("http://" + restAddr + "/v1/metadata"); err != nil || r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("metadata without the token: %v %v", r, err)
	}
	// The sandbox cannot read the token file.
	r, err := cl.Execute(good, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"cat", tok}}})
	if err != nil || strings.Contains(string(r.GetStdout()), "0123456789abcdef") {
		t.Fatalf("the token file was read from inside: %v %q", err, r.GetStdout())
	}
}
