package conformance

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The processes claim: commands cannot see or signal the host's processes,
// and nothing they start outlives them. The checks start a sleeper on the
// host with a unique argument and look for it, or try to kill it, from
// inside; the host judges by the sleeper's own state.

type sleeper struct {
	cmd    *exec.Cmd
	marker string
	done   chan struct{}
}

func startSleeper(ctx context.Context) (*sleeper, error) {
	// A fractional duration nobody else uses is the marker.
	marker := "97." + strconv.Itoa(100000+rand.IntN(899999))
	cmd := exec.CommandContext(ctx, "sleep", marker)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sleeper{cmd: cmd, marker: marker, done: make(chan struct{})}
	go func() { cmd.Wait(); close(s.done) }()
	return s, nil
}

func (s *sleeper) alive() bool {
	select {
	case <-s.done:
		return false
	case <-time.After(100 * time.Millisecond):
		return true
	}
}

func (s *sleeper) stop() {
	s.cmd.Process.Kill()
	<-s.done
}

// checkSeeHost looks for the sleeper's command line in every /proc entry
// the command can read. The marker travels split in two variables so the
// script's own command line never holds it.
func checkSeeHost(e *env) error {
	s, err := startSleeper(e.ctx)
	if err != nil {
		return skipf("host sleeper: %v", err)
	}
	defer s.stop()
	half := len(s.marker) / 2
	vars := map[string]string{"M1": s.marker[:half], "M2": s.marker[half:]}
	res, err := e.sh(`n=0; for f in /proc/[0-9]*/cmdline; do n=$((n+1)); c=$(tr '\0' ' ' < "$f" 2>/dev/null); case "$c" in *"$M1$M2"*) echo "SEEN $f";; esac; done; echo "LOOKED $n"
if command -v ps >/dev/null 2>&1; then ps -eo args 2>/dev/null | while read -r l; do case "$l" in *"$M1$M2"*) echo "SEEN ps";; esac; done; fi`, vars)
	if err != nil {
		return err
	}
	if !strings.Contains(res.Stdout, "LOOKED") {
		return fmt.Errorf("the probe did not run: kind %q, exit %s, stderr %s", res.Kind, showCode(res), clip(res.Stderr))
	}
	if strings.Contains(res.Stdout, "SEEN") {
		return fmt.Errorf("a command saw a host process (%s)", clip(res.Stdout))
	}
	return nil
}

// checkSignalHost tries to kill the sleeper by its host pid.
func checkSignalHost(e *env) error {
	s, err := startSleeper(e.ctx)
	if err != nil {
		return skipf("host sleeper: %v", err)
	}
	defer s.stop()
	pid := strconv.Itoa(s.cmd.Process.Pid)
	if _, err := e.attack(`kill -KILL "$P"; kill -TERM "$P"; kill -STOP "$P"`, map[string]string{"P": pid}); err != nil {
		return err
	}
	if !s.alive() {
		return errors.New("a command killed a host process by its pid")
	}
	return stopped(s.cmd.Process.Pid)
}

// checkDaemonOutlives: a double-forked, setsid'd daemon must not outlive
// the command that started it. The command waits for the daemon's first
// heartbeat, so the check judges an escaped daemon, not a race.
func checkDaemonOutlives(e *env) error {
	if err := e.inWorkDir(); err != nil {
		return err
	}
	vars := map[string]string{"BEAT": `i=0; while [ $i -lt 400 ] && echo $i > daemon-beat; do i=$((i+1)); sleep 0.05; done`}
	res, err := e.sh(`if command -v setsid >/dev/null 2>&1; then s=setsid; else s=; fi
( $s sh -c "$BEAT" </dev/null >/dev/null 2>&1 & )
i=0; while [ ! -s daemon-beat ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done; exit 0`, vars)
	if err != nil {
		return err
	}
	if exitCode(res) != 0 {
		return fmt.Errorf("the command exited %s", showCode(res))
	}
	return e.stillBeating("daemon-beat")
}
