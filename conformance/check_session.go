package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/policy"
)

// Sessioner is a Sandbox with long-lived sessions (ringfence.Local has
// them on the linux backend). The sessions/* checks run on a sandbox that
// implements it; one that does not, whose Session answers
// ringfence.ErrSessionUnsupported, or whose sessions are one-shot runs
// (Session.Shared false: landlock, reported partial) passes them as "not
// claimed".
type Sessioner interface {
	Session(ctx context.Context, req policy.Request, opts ...ringfence.SessionOptions) (*ringfence.Session, error)
}

// session opens a session on the check's sandbox, or reports the claim as
// not made.
func (e *env) session() (*ringfence.Session, error) {
	sr, ok := e.sb.(Sessioner)
	if !ok {
		return nil, errNotClaimed
	}
	s, err := sr.Session(e.ctx, policy.Request{})
	if errors.Is(err, ringfence.ErrSessionUnsupported) {
		return nil, errNotClaimed
	}
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	if !s.Shared() {
		// One confined run per process (the landlock backend): no shared
		// environment and no isolation of $TMPDIR between sessions, which
		// the session reports as partial — these checks are not claimed.
		s.Close()
		return nil, errNotClaimed
	}
	return s, nil
}

// beatScript writes a counter to the file named by $BEAT (in the working
// directory) every 50 ms for up to 20 s.
const beatScript = `i=0; while [ $i -lt 400 ] && echo $i > "$BEAT"; do i=$((i+1)); sleep 0.05; done`

// startIn starts sh -c script in s, in the work directory, in the
// background (no time limit of its own).
func (e *env) startIn(s *ringfence.Session, script string, vars map[string]string) (*ringfence.Process, error) {
	p, err := s.Start(e.ctx, ringfence.Cmd{Argv: []string{"sh", "-c", script}, Dir: workDir, Env: vars, Timeout: -1})
	if err != nil {
		return nil, fmt.Errorf("session start: %w", err)
	}
	return p, nil
}

// runIn runs sh -c script in s to its end.
func (e *env) runIn(s *ringfence.Session, script string, vars map[string]string) (*ringfence.ExecResult, error) {
	p, err := s.Start(e.ctx, ringfence.Cmd{Argv: []string{"sh", "-c", script}, Dir: workDir, Env: vars,
		Stdin: strings.NewReader("")})
	if err != nil {
		return nil, fmt.Errorf("session start: %w", err)
	}
	return p.Wait(e.ctx)
}

// beating reports whether a heartbeat file in the workspace moves, read
// from the host through the file API.
func (e *env) beating(name string) (bool, error) {
	read := func() (string, error) {
		b, err := e.sb.ReadFile(e.ctx, workDir+"/"+name, 1<<10)
		return string(b), err
	}
	deadline := time.Now().Add(5 * time.Second)
	first, err := read()
	for err != nil && time.Now().Before(deadline) { // not written yet
		time.Sleep(20 * time.Millisecond)
		first, err = read()
	}
	if err != nil {
		return false, skipf("heartbeat %s never started: %v", name, err)
	}
	time.Sleep(400 * time.Millisecond)
	now, _ := read()
	return now != first, nil
}

// checkSessionBackground: a process started in the background in one call
// keeps running after it, and a later call of the same session finds what
// the first left in its /tmp. Judged by a heartbeat the host reads through
// the file API, and by the second call reading the first's file.
func checkSessionBackground(e *env) error {
	if err := e.inWorkDir(); err != nil {
		return err
	}
	s, err := e.session()
	if err != nil {
		return err
	}
	defer s.Close()
	tok := token()
	res, err := e.runIn(s, `echo "$T" > /tmp/conformance-carried; ( sh -c "$B" </dev/null >/dev/null 2>&1 & ); exit 0`,
		map[string]string{"T": tok, "B": beatScript, "BEAT": "session-beat"})
	if err != nil {
		return err
	}
	if exitCode(res) != 0 {
		return fmt.Errorf("call 1 exited %s: %s", showCode(res), clip(res.Stderr))
	}
	alive, err := e.beating("session-beat")
	if err != nil {
		return err
	}
	if !alive {
		return errors.New("a background process of the session did not outlive the call that started it")
	}
	res, err = e.runIn(s, `cat /tmp/conformance-carried`, nil)
	if err != nil {
		return err
	}
	if strings.TrimSpace(res.Stdout) != tok {
		return fmt.Errorf("call 2 did not find call 1's /tmp file: stdout %s, stderr %s", clip(res.Stdout), clip(res.Stderr))
	}
	return nil
}

// checkSessionIsolation: two sessions of one sandbox are two
// environments. Session B looks for session A's process, kills every
// process it can name, and looks for A's /tmp file; A's heartbeat must
// keep moving (judged from the host) and B must find neither.
func checkSessionIsolation(e *env) error {
	if err := e.inWorkDir(); err != nil {
		return err
	}
	a, err := e.session()
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := e.session()
	if err != nil {
		return err
	}
	defer b.Close()
	tok := token()
	// The marker travels in the environment: A's heartbeat carries it in
	// its command line, B's script never does.
	if _, err := e.startIn(a, `echo "$T" > /tmp/conformance-a; exec sh -c "$B" conformance-a-`+tok,
		map[string]string{"T": tok, "B": beatScript, "BEAT": "a-beat"}); err != nil {
		return err
	}
	switch alive, err := e.beating("a-beat"); {
	case err != nil:
		return err
	case !alive:
		return skipf("session A's heartbeat did not move")
	}
	half := len(tok) / 2
	res, err := e.runIn(b, `n=0; for f in /proc/[0-9]*/cmdline; do n=$((n+1)); c=$(tr '\0' ' ' < "$f" 2>/dev/null); case "$c" in *"$M1$M2"*) echo SEEN;; esac; done
[ -e /tmp/conformance-a ] && echo SEEN-TMP
echo "LOOKED $n"
kill -KILL -1 2>/dev/null
for d in /proc/[0-9]*; do [ "${d#/proc/}" = $$ ] || kill -KILL "${d#/proc/}" 2>/dev/null; done
exit 0`, map[string]string{"M1": tok[:half], "M2": tok[half:]})
	if err != nil {
		return err
	}
	// B's kills may end B's own script early; it must have looked, and
	// what counts then is A's heartbeat, judged from the host.
	if !strings.Contains(res.Stdout, "LOOKED") {
		return fmt.Errorf("session B's probe did not run: kind %q, stderr %s", res.Kind, clip(res.Stderr))
	}
	if strings.Contains(res.Stdout, "SEEN") {
		return fmt.Errorf("session B saw session A's process or /tmp: %s", clip(res.Stdout))
	}
	alive, err := e.beating("a-beat")
	if err != nil {
		return err
	}
	if !alive {
		return errors.New("session B killed session A's process")
	}
	return nil
}

// checkSessionTeardown: closing a session ends every process it started —
// one in the background, one double-forked and setsid'd — as seen from the
// host: their heartbeats stop and no host process carries the marker.
func checkSessionTeardown(e *env) error {
	if err := e.inWorkDir(); err != nil {
		return err
	}
	s, err := e.session()
	if err != nil {
		return err
	}
	tok := token()
	vars := map[string]string{"B": beatScript}
	if _, err := e.startIn(s, `BEAT=bg-beat exec sh -c "$B" conformance-bg-`+tok, vars); err != nil {
		s.Close()
		return err
	}
	res, err := e.runIn(s, `if command -v setsid >/dev/null 2>&1; then x=setsid; else x=; fi
( BEAT=daemon-beat $x sh -c "$B" conformance-daemon-`+tok+` </dev/null >/dev/null 2>&1 & ); exit 0`, vars)
	if err != nil {
		s.Close()
		return err
	}
	for _, n := range []string{"bg-beat", "daemon-beat"} {
		alive, err := e.beating(n)
		if err == nil && !alive {
			err = skipf("%s did not move: %s", n, clip(res.Stderr))
		}
		if err != nil {
			s.Close()
			return err
		}
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	var errs []error
	for _, n := range []string{"bg-beat", "daemon-beat"} {
		if alive, _ := e.beating(n); alive {
			errs = append(errs, fmt.Errorf("%s still moves after the session closed", n))
		}
	}
	if pids := hostProcsWith("conformance-", tok); len(pids) > 0 {
		errs = append(errs, fmt.Errorf("host processes %v of the session outlived it", pids))
	}
	return joinErrs(errs)
}

// hostProcsWith lists host processes whose command line holds every part.
func hostProcsWith(parts ...string) []string {
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		all := true
		for _, part := range parts {
			all = all && strings.Contains(string(b), part)
		}
		if all {
			out = append(out, filepath.Base(filepath.Dir(p)))
		}
	}
	return out
}
