package remote

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/policy"
)

// serveFlags maps an attack's policy to `ringfence serve` flags: its root
// (shown at its real path, so the scripts' $ROOT is true inside), its
// network mode, its denied and read-only layers. ok is false for a
// policy the flags cannot express (the attack is then skipped by name).
func serveFlags(p *policy.Policy) (args []string, why string) {
	if p.Mode != policy.WorkspaceWrite || p.Baseline != policy.Read {
		return nil, "mode or baseline other than serve's workspace-write over a readable host"
	}
	args = []string{"--mount-path", p.Root, "--network", p.Network.Mode.String()}
	for _, l := range p.Layers {
		switch {
		case l.Path == p.Root && l.Access == policy.Write:
		case l.Access == policy.Deny:
			args = append(args, "--deny", l.Path)
		case l.Access == policy.Read:
			args = append(args, "--read-only", l.Path)
		default:
			return nil, "a layer the flags cannot express: " + l.Path + " " + l.Access.String()
		}
	}
	return args, ""
}

// remoteConfiner runs each attack through the remote client on a
// `ringfence serve` of its own, started with the attack's policy as flags
// (inittest gives every attack a fresh world). A PTY attack gets the
// server's own terminal (the standard's pty), since a host descriptor
// cannot cross the API.
func remoteConfiner(t *testing.T, e *inittest.Env, p *policy.Policy, script string, stdin *os.File) inittest.Result {
	t.Helper()
	args, why := serveFlags(p)
	if why != "" {
		t.Skipf("not expressible through serve flags: %s", why)
	}
	s := startServe(t, e.Root, args...)
	sb := s.client(t, Options{})
	vars := map[string]string{}
	for _, kv := range e.Vars() {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	opts := ringfence.ExecOptions{Env: vars, Timeout: 60 * time.Second}
	if stdin != nil {
		opts.Terminal = &ringfence.Terminal{Stdin: true, Stdout: true, Stderr: true}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := sb.Exec(ctx, []string{"/bin/sh", "-c", script}, opts)
	if err != nil {
		t.Fatalf("exec through the server: %v\n%s", err, s.proc.Log())
	}
	out := inittest.Result{Stdout: res.Stdout, Stderr: res.Stderr, Code: -1}
	out.Status.Started = res.Kind != ringfence.KindRunnerFailure
	if res.ExitCode != nil {
		out.Code = *res.ExitCode
		code := *res.ExitCode
		out.Status.Exit = &status.Event{Kind: status.Exited, ExitCode: &code}
	}
	return out
}

// remoteEscapeGaps are the attacks that work through ringfence serve and
// why: the server's processes share one session by design (see
// sharedSessionGap); "outlive" backgrounds a setsid'd sleep and exits.
var remoteEscapeGaps = map[string]string{
	"outlive": sharedSessionGap,
}

// The escape suite (initproc/inittest: every attack with its unconfined
// control) through the remote client, each attack against a server
// started with its policy.
func TestEscapesThroughRemote(t *testing.T) {
	inittest.RunSuite(t, remoteConfiner, remoteEscapeGaps)
}

// The same escape suite with the test and every server as uid 65534
// (attacks that only work unconfined as root skip there, as in the other
// suites): a copy of this test binary and of the server binary that
// nobody can execute, under RINGFENCE_REQUIRE_ALL=1.
func TestEscapesThroughRemoteNonRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("already not root")
	}
	inittest.Rerun(t, inittest.RerunOptions{Pattern: "^TestEscapesThroughRemote$", UID: nobody,
		Env: []string{"PATH=/usr/bin:/bin"}, Copies: map[string]string{serveBinEnv: serveBin},
		PassMark: "--- PASS: TestEscapesThroughRemote/"})
}

const nobody = 65534
