//go:build linux

package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// serve on the landlock backend (a pod whose seccomp profile refuses
// namespaces): it starts, a file PUT over REST is what a process reads
// over gRPC, a PTY process has a terminal, the outcome says the session is
// partial, and a write outside the root is refused (control: the same
// write from the host lands).
func TestServeOnLandlock(t *testing.T) {
	needBackend(t, "landlock")
	root := workspace(t)
	s := startServe(t, "--root-dir", root, "--backend", "landlock")
	req, _ := http.NewRequest(http.MethodPut, "http://"+s.rest+"/v1/files/in.txt", strings.NewReader("from the client\n"))
	r, err := http.DefaultClient.Do(req)
	if err != nil || r.StatusCode/100 != 2 {
		t.Fatalf("PUT: %v %v", err, r)
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	conn, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := pb.NewProcessServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var md metadata.MD
	res, err := c.Execute(ctx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"cat", "in.txt"}}}, grpc.Trailer(&md))
	if err != nil || res.GetExitCode() != 0 || string(res.GetStdout()) != "from the client\n" {
		t.Fatalf("Execute cat: %v %v", err, res)
	}
	if o := strings.Join(md.Get("ringfence-outcome-bin"), ""); !strings.Contains(o, `"backend":"landlock"`) || !strings.Contains(o, "session partial") {
		t.Fatalf("the outcome does not tell a partial landlock session: %s", o)
	}
	st, err := c.Start(ctx, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "stty size && tty"}},
		Pty: &pb.PTY{Cols: 100, Rows: 30}})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for {
		m, err := st.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out.Write(m.GetStdout())
	}
	if got := strings.ReplaceAll(out.String(), "\r", ""); !strings.HasPrefix(got, "30 100\n/dev/pts/") {
		t.Fatalf("PTY: %q", got)
	}
	target := filepath.Join(t.TempDir(), "pwned")
	res, err = c.Execute(ctx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"sh", "-c", "echo x > " + target}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); err == nil || res.GetExitCode() == 0 {
		t.Fatalf("a process wrote outside the root (exit %d)", res.GetExitCode())
	}
	if out, err := exec.Command("sh", "-c", "echo x > "+target).CombinedOutput(); err != nil {
		t.Fatalf("control: %v %s", err, out)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("control: the unconfined write did not land: %v", err)
	}
}
