//go:build linux

// Package inittest runs a confine.Cmd the way the supervisor does, for the
// backends' tests and benchmarks: start, Setup, read the status channel to
// EOF, wait, Cleanup.
package inittest

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"syscall"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/status"
)

// Result is what one run produced.
type Result struct {
	Stdout, Stderr string
	Code           int // exit code, 128+signal when killed, -1 when not started
	Status         status.Summary
}

// Run runs c with stdin and returns its result. An error means the init
// could not be started or set up at all.
func Run(c *confine.Cmd, stdin io.Reader) (Result, error) {
	if c.Cleanup != nil {
		defer c.Cleanup()
	}
	var out, errb bytes.Buffer
	cmd := &exec.Cmd{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir,
		ExtraFiles: c.ExtraFiles, SysProcAttr: c.SysProcAttr,
		Stdin: stdin, Stdout: &out, Stderr: &errb}
	if err := cmd.Start(); err != nil {
		return Result{Code: -1}, err
	}
	for _, f := range c.ExtraFiles {
		f.Close()
	}
	var serr error
	if c.Setup != nil {
		serr = c.Setup(cmd.Process.Pid)
		if serr != nil {
			_ = cmd.Process.Kill()
		}
	}
	var sum status.Summary
	if c.Status != nil {
		sum = status.Read(c.Status)
	}
	werr := cmd.Wait()
	res := Result{Stdout: out.String(), Stderr: errb.String(), Code: cmd.ProcessState.ExitCode(), Status: sum}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.Code = 128 + int(ws.Signal())
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) && serr == nil {
		serr = werr
	}
	return res, serr
}
