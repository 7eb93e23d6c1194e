package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// The reference daemon's own round trip, through one `ringfence serve`:
// a file PUT over REST is what a confined process reads over gRPC, the
// process's own write comes back over REST, the listing shows both, and
// DELETE makes the next GET a 404. Then a protected path planted over
// REST is refused, and the server's REST port is the files API, not
// health alone.
func TestServeRESTAndProcessRoundTrip(t *testing.T) {
	s := startServe(t, "--root-dir", workspace(t))
	base := "http://" + s.rest + "/v1/files/"
	do := func(method, path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	if code, body := do(http.MethodPut, "notes/in.txt", "from the client\n"); code/100 != 2 {
		t.Fatalf("PUT: %d %s", code, body)
	}
	conn, err := grpc.NewClient(s.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := pb.NewProcessServiceClient(conn).Execute(ctx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{
		Command: []string{"sh", "-c", "cat notes/in.txt && echo from the process > notes/out.txt"}}})
	if err != nil || res.GetExitCode() != 0 || string(res.GetStdout()) != "from the client\n" {
		t.Fatalf("Execute cat: %v exit %d stdout %q stderr %q", err, res.GetExitCode(), res.GetStdout(), res.GetStderr())
	}
	if code, body := do(http.MethodGet, "notes/out.txt", ""); code != http.StatusOK || body != "from the process\n" {
		t.Fatalf("GET the process's file: %d %q", code, body)
	}
	code, body := do(http.MethodGet, "notes/", "")
	var listing struct {
		Entries []struct{ Name string } `json:"entries"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &listing) != nil || len(listing.Entries) != 2 {
		t.Fatalf("list: %d %s", code, body)
	}
	if code, body := do(http.MethodDelete, "notes/in.txt", ""); code/100 != 2 {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	if code, _ := do(http.MethodGet, "notes/in.txt", ""); code != http.StatusNotFound {
		t.Fatalf("GET after DELETE: %d, want 404", code)
	}
	if code, _ := do(http.MethodPut, "src/.git/hooks/pre-commit", "#!/bin/sh\ntouch /tmp/pwned\n"); code != http.StatusForbidden {
		t.Fatalf("a protected path planted over REST: %d, want 403", code)
	}
}
