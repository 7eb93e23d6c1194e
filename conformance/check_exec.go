package conformance

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ringfence/ringfence"
)

func checkCloseTwice(e *env) error {
	// runOne closes every sandbox twice after its check; this check makes
	// that the whole point, on a sandbox that has run a command.
	_, err := e.shOK("true", nil)
	return err
}

func checkExitCode(e *env) error {
	for _, want := range []int{0, 1, 7, 42} {
		res, err := e.sh(fmt.Sprintf("exit %d", want), nil)
		if err != nil {
			return err
		}
		if res.ExitCode == nil || *res.ExitCode != want {
			return fmt.Errorf("exit %d: got exit code %s", want, showCode(res))
		}
		if res.TimedOut {
			return fmt.Errorf("exit %d: reported as timed out", want)
		}
	}
	return nil
}

func checkStdoutStderr(e *env) error {
	res, err := e.sh(`printf 'to out\n'; printf 'to err\n' >&2; printf 'more out'`, nil)
	if err != nil {
		return err
	}
	if res.Stdout != "to out\nmore out" {
		return fmt.Errorf("stdout %s, want %q", clip(res.Stdout), "to out\nmore out")
	}
	if res.Stderr != "to err\n" {
		return fmt.Errorf("stderr %s, want %q", clip(res.Stderr), "to err\n")
	}
	return nil
}

func checkStdin(e *env) error {
	in := "first line " + token() + "\nsecond line\n"
	res, err := e.exec([]string{"cat"}, ringfence.ExecOptions{Stdin: strings.NewReader(in)})
	if err != nil {
		return err
	}
	if res.Stdout != in {
		return fmt.Errorf("cat echoed %s, want the %d bytes given", clip(res.Stdout), len(in))
	}
	// No Stdin is empty input, not the host's: cat must end at once.
	res, err = e.exec([]string{"cat"}, ringfence.ExecOptions{Timeout: 5 * time.Second})
	if err != nil {
		return err
	}
	if res.TimedOut || res.Stdout != "" || exitCode(res) != 0 {
		return fmt.Errorf("cat with no stdin: exit %s, timed out %v, stdout %s", showCode(res), res.TimedOut, clip(res.Stdout))
	}
	return nil
}

// checkEnvOnlyGiven plants a canary in the host's environment and looks
// for it inside: only PATH-like basics and the variables given may appear.
func checkEnvOnlyGiven(e *env) error {
	name, value := "RINGFENCE_CONFORMANCE_CANARY_"+token(), "canary-"+token()
	os.Setenv(name, value)
	defer os.Unsetenv(name)
	given := "given-" + token()
	res, err := e.exec([]string{"env"}, ringfence.ExecOptions{Env: map[string]string{"RF_CONFORMANCE_GIVEN": given}})
	if err != nil {
		return err
	}
	var errs []error
	if strings.Contains(res.Stdout, value) || strings.Contains(res.Stdout, name) {
		errs = append(errs, errors.New("the host's environment reached the command (canary seen)"))
	}
	if !strings.Contains(res.Stdout, "RF_CONFORMANCE_GIVEN="+given+"\n") {
		errs = append(errs, errors.New("the variable given in ExecOptions.Env is missing"))
	}
	return joinErrs(errs)
}

// checkTimeoutStopsTree runs a command past its timeout that has started
// two background descendants, one in its own session (setsid), each
// beating a heartbeat file, and waits for both to beat before it sleeps.
// Once Exec has returned, no heartbeat may move.
func checkTimeoutStopsTree(e *env) error {
	script := `beat() { i=0; while [ $i -lt 400 ] && echo $i > "$1"; do i=$((i+1)); sleep 0.05; done; }
if command -v setsid >/dev/null 2>&1; then setsid sh -c "$BEAT" sh beat-setsid & else (beat beat-setsid) & fi
(beat beat-bg) &
n=0; while { [ ! -s beat-setsid ] || [ ! -s beat-bg ]; } && [ $n -lt 600 ]; do sleep 0.01; n=$((n+1)); done
sleep 30`
	if err := e.inWorkDir(); err != nil {
		return err
	}
	vars := map[string]string{"BEAT": `i=0; while [ $i -lt 400 ] && echo $i > "$1"; do i=$((i+1)); sleep 0.05; done`}
	start := time.Now()
	res, err := e.exec([]string{"sh", "-c", script}, ringfence.ExecOptions{Dir: workDir, Timeout: e.opts.Timeout, Env: vars})
	if err != nil {
		return err
	}
	var errs []error
	if !res.TimedOut {
		errs = append(errs, fmt.Errorf("not reported as timed out (kind %q, exit %s)", res.Kind, showCode(res)))
	}
	if res.ExitCode != nil {
		errs = append(errs, fmt.Errorf("a stopped command has exit code %d, want none", *res.ExitCode))
	}
	if took := time.Since(start); took > 20*time.Second {
		errs = append(errs, fmt.Errorf("exec returned after %v: the command was not stopped", took.Round(time.Millisecond)))
	}
	errs = append(errs, e.stillBeating("beat-setsid", "beat-bg"))
	return joinErrs(errs)
}

// stillBeating fails when a heartbeat file in workDir changes after the
// command has returned: what writes it outlived the command.
func (e *env) stillBeating(names ...string) error {
	read := func(n string) (string, bool) {
		b, err := e.sb.ReadFile(e.ctx, workDir+"/"+n, 1<<10)
		return string(b), err == nil
	}
	first := map[string]string{}
	for _, n := range names {
		v, ok := read(n)
		if !ok {
			return skipf("heartbeat %s never started: the descendant did not run before the command ended", n)
		}
		first[n] = v
	}
	time.Sleep(700 * time.Millisecond)
	var errs []error
	for _, n := range names {
		if v, _ := read(n); v != first[n] {
			errs = append(errs, fmt.Errorf("a descendant outlived the command: heartbeat %s still moves", n))
		}
	}
	return joinErrs(errs)
}

// checkNotRunnable: a program that is not there exits 127 and one that is
// there but cannot be executed exits 126, as a shell says, so a caller
// (or a model) can tell a typo from a missing execute bit.
func checkNotRunnable(e *env) error {
	res, err := e.exec([]string{"ringfence-conformance-missing-" + token()}, ringfence.ExecOptions{})
	if err != nil {
		return err
	}
	if exitCode(res) != 127 {
		return fmt.Errorf("a missing program: exit code %s, want 127", showCode(res))
	}
	if err := e.inWorkDir(); err != nil {
		return err
	}
	name := "noexec-" + token() + ".sh"
	if err := e.sb.WriteFile(e.ctx, workDir+"/"+name, []byte("#!/bin/sh\necho ran\n")); err != nil {
		return fmt.Errorf("setup: write_file: %w", err)
	}
	res, err = e.exec([]string{"./" + name}, ringfence.ExecOptions{Dir: workDir})
	if err != nil {
		return err
	}
	if exitCode(res) != 126 || strings.Contains(res.Stdout, "ran") {
		return fmt.Errorf("a program without the execute bit: exit code %s, stdout %s; want 126 and nothing run", showCode(res), clip(res.Stdout))
	}
	return nil
}
