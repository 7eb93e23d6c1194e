//go:build linux

package deploy

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// serveImage runs the image as `serve` (its own CMD's server, on free
// ports, --network host so the test reaches them) under the runtime's
// profile plus extra, and drives it as a client would: health 200, a
// file PUT and GET over REST, gRPC Execute of `/ringfence version` (the
// image has no shell), Start of it on a PTY; then `podman stop` ends it
// cleanly (SIGTERM: exit 0 within the stop timeout).
func serveImage(t *testing.T, tag, wantBackend string, extra ...string) {
	t.Helper()
	grpcPort, restPort := freePort(t), freePort(t)
	name := fmt.Sprintf("ringfence-serve-test-%d-%s", os.Getpid(), wantBackend)
	args := []string{"run", "-d", "--name", name, "--runtime", "runc", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096",
		"--network", "host", "--read-only", "--tmpfs", "/tmp:rw,mode=1777", "--tmpfs", "/workspace:rw,mode=1777"}
	args = append(append(args, extra...), tag, "serve", "--root-dir", "/workspace",
		"--grpc-port", fmt.Sprint(grpcPort), "--rest-port", fmt.Sprint(restPort))
	podman(t, args...)
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = exec.Command("podman", "rm", "-f", "-t", "0", name).Run()
		}
	})
	logs := func() string { out, _ := exec.Command("podman", "logs", name).CombinedOutput(); return string(out) }
	rest := fmt.Sprintf("http://127.0.0.1:%d", restPort)
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := http.Get(rest + "/v1/health")
		if err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: health never 200 (%v)\n%s", wantBackend, err, logs())
		}
		time.Sleep(100 * time.Millisecond)
	}
	req, _ := http.NewRequest(http.MethodPut, rest+"/v1/files/note.txt", strings.NewReader("hello"))
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode/100 != 2 {
		t.Fatalf("%s: PUT: %v %v", wantBackend, err, r)
	}
	r, err := http.Get(rest + "/v1/files/note.txt")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if r.StatusCode != 200 || string(body) != "hello" {
		t.Fatalf("%s: GET: %d %q", wantBackend, r.StatusCode, body)
	}

	conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", grpcPort), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := pb.NewProcessServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.Execute(ctx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"/ringfence", "version"}}})
	if err != nil || res.GetExitCode() != 0 || !bytes.Contains(res.GetStdout(), []byte("ringfence")) {
		t.Fatalf("%s: Execute /ringfence version: %v %v\n%s", wantBackend, err, res, logs())
	}
	st, err := c.Start(ctx, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"/ringfence", "version"}},
		Pty: &pb.PTY{Cols: 80, Rows: 24}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	exited := false
	for {
		m, err := st.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: Start stream: %v", wantBackend, err)
		}
		out.Write(m.GetStdout())
		if e := m.GetExit(); e != nil {
			exited = e.GetExitCode() == 0
		}
	}
	if !exited || !bytes.Contains(out.Bytes(), []byte("ringfence")) {
		t.Fatalf("%s: Start on a PTY: exit ok %v, out %q", wantBackend, exited, out.String())
	}
	// The backend the server confines with, as its outcome tells it.
	if tr := st.Trailer().Get("ringfence-outcome-bin"); len(tr) != 1 || !strings.Contains(tr[0], `"backend":"`+wantBackend+`"`) {
		t.Errorf("%s: outcome trailer %q", wantBackend, tr)
	}

	begin := time.Now()
	podman(t, "stop", "-t", "10", name)
	stopped = true
	code := podman(t, "inspect", "-f", "{{.State.ExitCode}}", name)
	_ = exec.Command("podman", "rm", "-f", name).Run()
	if code != "0" || time.Since(begin) > 9*time.Second {
		t.Fatalf("%s: podman stop: exit %s after %v\n%s", wantBackend, code, time.Since(begin), logs())
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
