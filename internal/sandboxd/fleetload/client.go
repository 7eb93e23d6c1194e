package fleetload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/emptypb"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// client is one concurrent caller of one server: its own gRPC connection
// and its own HTTP transport, as separate agents would have.
type client struct {
	name   string // "s1c7": names its files and its tokens
	conn   *grpc.ClientConn
	proc   pb.ProcessServiceClient
	http   *http.Client
	rest   string // http://host:port
	rng    *rand.Rand
	record func(kind string, d time.Duration)
}

func newClient(name, grpcAddr, restAddr string, seed uint64, record func(string, time.Duration)) (*client, error) {
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	var seedb [32]byte
	copy(seedb[:], fmt.Sprintf("%s-%d", name, seed))
	return &client{name: name, conn: conn, proc: pb.NewProcessServiceClient(conn),
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}},
		rest: "http://" + restAddr, rng: rand.New(rand.NewChaCha8(seedb)), record: record}, nil
}

// close drops both connections, so that the server's descriptors for
// them can be counted as gone.
func (c *client) close() {
	c.conn.Close()
	c.http.CloseIdleConnections()
}

// round is one client's mixed calls, every result checked; i numbers it.
// The hash, list and delete steps run every round: what the REST API
// wrote must be what a confined command reads.
func (c *client) round(ctx context.Context, i int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := c.execute(ctx, i); err != nil {
		return err
	}
	if err := c.startStdin(ctx, i); err != nil {
		return err
	}
	return c.files(ctx, i)
}

// execute runs a shell that writes a token to stdout, another to stderr
// and exits with a chosen code: all three must come back exactly.
func (c *client) execute(ctx context.Context, i int) error {
	tok := fmt.Sprintf("%s-%d", c.name, i)
	code := int32(i % 4)
	begin := time.Now()
	r, err := c.proc.Execute(ctx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{
		"sh", "-c", `printf %s "$1"; printf e%s "$1" >&2; exit "$2"`, "sh", tok, fmt.Sprint(code)}}})
	if err != nil {
		return fmt.Errorf("%s Execute %d: %w", c.name, i, err)
	}
	if string(r.GetStdout()) != tok || string(r.GetStderr()) != "e"+tok || r.GetExitCode() != code {
		return fmt.Errorf("%s Execute %d: stdout %q stderr %q exit %d, want %q %q %d",
			c.name, i, r.GetStdout(), r.GetStderr(), r.GetExitCode(), tok, "e"+tok, code)
	}
	c.record(KindExecute, time.Since(begin))
	return nil
}

// startStdin starts cat, streams random bytes (1 B to 64 KiB, in three
// writes) into it while reading its events, closes stdin and checks the
// echo and the exit.
func (c *client) startStdin(ctx context.Context, i int) error {
	data := c.bytes(1 + c.rng.IntN(64<<10))
	begin := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // a failed check takes the process with the stream
	st, err := c.proc.Start(ctx, &pb.StartRequest{Config: &pb.ProcessConfig{Command: []string{"cat"}}})
	if err != nil {
		return fmt.Errorf("%s Start %d: %w", c.name, i, err)
	}
	m, err := st.Recv()
	if err != nil || m.GetInit() == nil {
		return fmt.Errorf("%s Start %d: first event %v, %v (want InitEvent)", c.name, i, m, err)
	}
	id := m.GetInit().GetProcessId()
	type result struct {
		out  []byte
		exit *pb.ExitEvent
		err  error
	}
	done := make(chan result, 1)
	go func() { // read while writing: the pipes and the stream's window are bounded
		var out bytes.Buffer
		for {
			m, err := st.Recv()
			if err != nil {
				done <- result{out.Bytes(), nil, err}
				return
			}
			out.Write(m.GetStdout())
			if len(m.GetStderr()) > 0 {
				done <- result{out.Bytes(), nil, fmt.Errorf("stderr %q", m.GetStderr())}
				return
			}
			if e := m.GetExit(); e != nil {
				done <- result{out.Bytes(), e, nil}
				return
			}
		}
	}()
	a, b := len(data)/3, 2*len(data)/3
	for _, part := range [][]byte{data[:a], data[a:b], data[b:]} {
		if len(part) == 0 {
			continue
		}
		if _, err := c.proc.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: id, Payload: &pb.WriteStdinRequest_Input{Input: part}}); err != nil {
			return fmt.Errorf("%s Start %d: WriteStdin: %w", c.name, i, err)
		}
	}
	if _, err := c.proc.WriteStdin(ctx, &pb.WriteStdinRequest{ProcessId: id, Payload: &pb.WriteStdinRequest_Eof{Eof: &emptypb.Empty{}}}); err != nil {
		return fmt.Errorf("%s Start %d: WriteStdin EOF: %w", c.name, i, err)
	}
	r := <-done
	switch {
	case r.err != nil:
		return fmt.Errorf("%s Start %d: %w", c.name, i, r.err)
	case r.exit.GetExitCode() != 0:
		return fmt.Errorf("%s Start %d: exit %d", c.name, i, r.exit.GetExitCode())
	case !bytes.Equal(r.out, data):
		return fmt.Errorf("%s Start %d: echoed %d bytes differ from the %d sent", c.name, i, len(r.out), len(data))
	}
	c.record(KindStart, time.Since(begin))
	return nil
}

// files PUTs random bytes (1 B to 256 KiB), GETs them back, hashes them
// with a confined sha256sum, lists the directory, DELETEs the file and
// checks that a GET is then 404.
func (c *client) files(ctx context.Context, i int) error {
	dir := "fleet/" + c.name
	name := fmt.Sprintf("f%d.bin", i)
	path := dir + "/" + name
	data := c.bytes(1 + c.rng.IntN(256<<10))

	begin := time.Now()
	if _, err := c.do(ctx, http.MethodPut, path, data, http.StatusNoContent); err != nil {
		return err
	}
	c.record(KindPut, time.Since(begin))

	begin = time.Now()
	got, err := c.do(ctx, http.MethodGet, path, nil, http.StatusOK)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, data) {
		return fmt.Errorf("%s GET %s: %d bytes differ from the %d put", c.name, path, len(got), len(data))
	}
	c.record(KindGet, time.Since(begin))

	begin = time.Now()
	r, err := c.proc.Execute(ctx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"sha256sum", path}}})
	sum := sha256.Sum256(data)
	if want := hex.EncodeToString(sum[:]) + "  " + path + "\n"; err != nil || r.GetExitCode() != 0 || string(r.GetStdout()) != want {
		return fmt.Errorf("%s Execute sha256sum %s: %v stdout %q stderr %q, want %q", c.name, path, err, r.GetStdout(), r.GetStderr(), want)
	}
	c.record(KindHash, time.Since(begin))

	begin = time.Now()
	body, err := c.do(ctx, http.MethodGet, dir, nil, http.StatusOK)
	if err != nil {
		return err
	}
	if err := checkListing(body, name, int64(len(data))); err != nil {
		return fmt.Errorf("%s list %s: %w", c.name, dir, err)
	}
	c.record(KindList, time.Since(begin))

	begin = time.Now()
	if _, err := c.do(ctx, http.MethodDelete, path, nil, http.StatusNoContent); err != nil {
		return err
	}
	if _, err := c.do(ctx, http.MethodGet, path, nil, http.StatusNotFound); err != nil {
		return err
	}
	c.record(KindDelete, time.Since(begin))
	return nil
}

// checkListing wants exactly one entry (each client deletes its file
// before the next), the file just put, with its size.
func checkListing(body []byte, name string, size int64) error {
	var l struct {
		Entries []struct {
			Name string `json:"name"`
			Size int64  `json:"size"`
			Type string `json:"type"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		return fmt.Errorf("not a DirectoryListing: %v", err)
	}
	if len(l.Entries) != 1 || l.Entries[0].Name != name || l.Entries[0].Size != size || l.Entries[0].Type != "file" {
		return fmt.Errorf("entries %+v, want only %s (file, %d bytes)", l.Entries, name, size)
	}
	return nil
}

// do makes one REST call and wants the status; it returns the body.
func (c *client) do(ctx context.Context, method, path string, body []byte, want int) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.rest+"/v1/files/"+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s %s: %w", c.name, method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s %s: reading the body: %w", c.name, method, path, err)
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("%s %s %s: status %d, want %d: %s", c.name, method, path, resp.StatusCode, want, strings.TrimSpace(string(b)))
	}
	return b, nil
}

func (c *client) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(c.rng.Uint32())
	}
	return b
}
