//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// hostDir is a fresh directory the sandbox sees at the same path: not under
// /tmp, which is private inside it.
func hostDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "ringfence-facade-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return real
}

func newLocal(t *testing.T, cfg Config) *Local {
	t.Helper()
	if cfg.Root == "" {
		cfg.Root = hostDir(t)
	}
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if l.Backend() == "" {
		testenv.Need(t, "a confining backend", errors.New("no backend confines on this host"))
	}
	return l
}

// A zero Config is the agent profile: the workspace writable, the host
// readable but not writable, no network.
func TestZeroConfigIsAgentProfile(t *testing.T) {
	l := newLocal(t, Config{})
	pol, err := l.Policy(policy.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if pol.Mode != policy.WorkspaceWrite || pol.Baseline != policy.Read || pol.Network.Mode != policy.NetDeny {
		t.Fatalf("zero config resolved to mode %v baseline %v network %v", pol.Mode, pol.Baseline, pol.Network.Mode)
	}
	if iso := l.Isolation(); !iso.Filesystem || !iso.Network {
		t.Fatalf("isolation %+v", iso)
	}
	outside := filepath.Join(hostDir(t), "outside")
	res, err := l.Exec(context.Background(), []string{"sh", "-c",
		`echo in > inside; cat /etc/hostname >/dev/null && echo read; echo out > "$0"`, outside}, ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(l.defaults.Root, "inside")); err != nil || string(b) != "in\n" {
		t.Fatalf("the workspace write did not land: %v", err)
	}
	if !strings.Contains(res.Stdout, "read") {
		t.Fatalf("the host is not readable: %q %q", res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(outside); err == nil || res.Kind != KindDenied {
		t.Fatalf("the write outside the workspace was not refused: kind %s, %v", res.Kind, err)
	}
}

// The control: a Defaults with any field set is taken as written, and its
// zero Mode is read-only, so the same workspace write is refused.
func TestSetDefaultsAreTakenAsWritten(t *testing.T) {
	l := newLocal(t, Config{Defaults: policy.Defaults{Baseline: policy.Read}})
	res, err := l.Exec(context.Background(), []string{"sh", "-c", "echo in > inside"}, ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(l.defaults.Root, "inside")); err == nil || res.Kind != KindDenied {
		t.Fatalf("read-only defaults let the write land: kind %s", res.Kind)
	}
}

// A context deadline is a timeout: timed-out, narrated with the time the
// command had; a context already past its deadline is an error that says so.
func TestContextDeadline(t *testing.T) {
	l := newLocal(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	res, err := l.Exec(ctx, []string{"sleep", "30"}, ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindTimedOut || res.Outcome.Kind != outcome.TimedOut || res.Outcome.Limit != 1 {
		t.Fatalf("kind %s outcome %+v, want timed-out with a 1 second limit", res.Kind, res.Outcome)
	}
	if !strings.Contains(res.Narration, "timeout") {
		t.Fatalf("narration %q", res.Narration)
	}
	_, err = l.Exec(ctx, []string{"true"}, ExecOptions{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("an expired context gave %v, want context.DeadlineExceeded", err)
	}
	// The control: a cancellation is an abort, not a timeout.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, err = l.Exec(ctx, []string{"sleep", "30"}, ExecOptions{})
	if err != nil || res.Kind != KindAborted {
		t.Fatalf("cancel: %v kind %v, want aborted", err, res.Kind)
	}
	if _, err := l.Exec(ctx, []string{"true"}, ExecOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled context gave %v", err)
	}
}

// The library's default grace lets a trap run on a timeout; KillAfter < 0
// kills at once.
func TestKillAfterDefault(t *testing.T) {
	for _, tc := range []struct {
		killAfter time.Duration
		trapped   bool
	}{{0, true}, {-1, false}} {
		// 1 s, not less: on a loaded host the shell had not yet set its
		// trap when a 300 ms timeout fired (seen once in a parallel run).
		l := newLocal(t, Config{Timeout: time.Second, KillAfter: tc.killAfter})
		res, err := l.Exec(context.Background(), []string{"sh", "-c", `trap 'echo t > trapped; exit 1' TERM; sleep 30`}, ExecOptions{})
		if err != nil || res.Kind != KindTimedOut {
			t.Fatalf("%v: %v %v", tc.killAfter, err, res.Kind)
		}
		_, err = os.Stat(filepath.Join(l.defaults.Root, "trapped"))
		if (err == nil) != tc.trapped {
			t.Errorf("KillAfter %v: trap ran %v, want %v", tc.killAfter, err == nil, tc.trapped)
		}
	}
}
