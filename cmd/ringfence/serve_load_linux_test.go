package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/sandboxd/fleetload"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// fleetConfig runs this test binary as `ringfence serve` (TestMain's
// cliMainEnv): real server processes, with the race detector in them too.
func fleetConfig(t *testing.T, servers, clients int, d time.Duration) fleetload.Config {
	t.Helper()
	needBackend(t, "linux")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fleetload.Config{Binary: exe, Env: []string{cliMainEnv + "=1"}, ServeArgs: []string{"--backend", "linux"},
		Servers: servers, Clients: clients, Duration: d, Dir: t.TempDir(), Log: tlog{t}}
}

// TestServeFleetMixedLoad is issue 17's load run, bounded for CI: 4
// `ringfence serve` processes on loopback, 8 concurrent clients each, for
// 20 s of mixed calls — Execute (stdout, stderr, exit code), Start with
// stdin (random bytes echoed by cat), REST PUT, GET, a confined sha256sum
// of the upload, a listing, DELETE and a 404 — every result checked; then
// every server is checked for leaked processes, descriptors, temp dirs
// and mounts after the run and after its shutdown. bench/fleet.sh runs
// the 4 × 32 × 3 min version.
func TestServeFleetMixedLoad(t *testing.T) {
	cfg := fleetConfig(t, 4, 8, 20*time.Second)
	if os.Geteuid() != 0 { // TestServeFleetNonRoot's rerun: smaller, within the package's budget
		cfg = fleetConfig(t, 2, 4, 8*time.Second)
	}
	rep, err := fleetload.Run(context.Background(), cfg)
	logReport(t, rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Stats {
		if !strings.Contains(s.Kind, "local") && !strings.Contains(s.Kind, "idle") && s.N < cfg.Servers*cfg.Clients {
			t.Errorf("%s: %d calls, fewer than one per client", s.Kind, s.N)
		}
	}
}

// TestServeFleetSeesLeaks proves the load run's leak checks can fail:
// after the load, real leaks are made on the server — a connection held
// open (a descriptor), a background process left in the session, a file
// left in the root, a mount under the root, a file in its TMPDIR — and
// each must be reported.
func TestServeFleetSeesLeaks(t *testing.T) {
	cfg := fleetConfig(t, 1, 2, 2*time.Second)
	cfg.SettleTime = 3 * time.Second
	var held *grpc.ClientConn
	t.Cleanup(func() {
		if held != nil {
			held.Close()
		}
	})
	cfg.Inject = func(s fleetload.ServerInfo) error {
		var err error
		if held, err = grpc.NewClient(s.GRPC, grpc.WithTransportCredentials(insecure.NewCredentials())); err != nil {
			return err
		}
		// Starting a background sleep opens the held connection too.
		st, err := pb.NewProcessServiceClient(held).Start(context.Background(), &pb.StartRequest{Config: &pb.ProcessConfig{
			Command: []string{"sh", "-c", "sleep 600 & echo started"}}})
		if err != nil {
			return err
		}
		for {
			m, err := st.Recv()
			if err != nil {
				return fmt.Errorf("the background starter: %w", err)
			}
			if m.GetExit() != nil {
				break
			}
		}
		req, _ := http.NewRequest(http.MethodPut, "http://"+s.REST+"/v1/files/left.txt", bytes.NewReader([]byte("left")))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			return fmt.Errorf("PUT left.txt: %s", resp.Status)
		}
		if os.Geteuid() != 0 { // only root mounts; the other leaks hold
			return os.WriteFile(filepath.Join(s.Tmp, "left"), nil, 0o600)
		}
		mnt := filepath.Join(s.Root, "mnt")
		if err := os.Mkdir(mnt, 0o755); err != nil {
			return err
		}
		if err := unix.Mount("fleetleak", mnt, "tmpfs", 0, "size=64k"); err != nil {
			return fmt.Errorf("mount: %w", err)
		}
		t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
		return os.WriteFile(filepath.Join(s.Tmp, "left"), nil, 0o600)
	}
	rep, err := fleetload.Run(context.Background(), cfg)
	logReport(t, rep)
	if err == nil {
		t.Fatal("the run passed with leaks made on purpose")
	}
	if len(rep.Errors) > 0 {
		t.Fatalf("wrong results besides the leaks: %q", rep.Errors)
	}
	all := strings.Join(rep.Leaks, "\n")
	wants := []string{
		"descriptors: ", // the held connection
		"processes: ",   // the background sleep, in the session
		"files left in the root after the run: left.txt", // the PUT nobody deleted
		"temp files left after shutdown: left",
	}
	if os.Geteuid() == 0 {
		mnt := filepath.Join(cfg.Dir, "s0", "root", "mnt")
		wants = append(wants, "mounts: new under the server's directories after the run: "+mnt,
			"mounts left in the host namespace: "+mnt)
	}
	for _, want := range wants {
		if !strings.Contains(all, want) {
			t.Errorf("no leak report containing %q in:\n%s", want, all)
		}
	}
}

// TestServeFleetNonRoot runs the load and the leak proof again with
// every server, and the driver, as uid 65534, as a pod's runtime usually
// runs.
func TestServeFleetNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestServeFleetMixedLoad|TestServeFleetSeesLeaks)$")
}

func logReport(t *testing.T, rep *fleetload.Report) {
	t.Helper()
	if rep == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d servers × %d clients for %v: %d rounds (≥ %d per client)\n", rep.Servers, rep.Clients,
		rep.Duration.Round(time.Millisecond), rep.Rounds, rep.MinRounds)
	fleetload.WriteTable(&b, rep.Stats)
	for _, l := range append(append(append([]string{}, rep.Errors...), rep.Leaks...), rep.Notes...) {
		b.WriteString(l + "\n")
	}
	t.Log(b.String())
}

// tlog sends the run's progress to the test log.
type tlog struct{ t *testing.T }

func (l tlog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
