package conformance

import (
	"bytes"
	"fmt"

	"github.com/ringfence/ringfence"
)

// checkRoundTrip: what WriteFile writes, a command reads; what a command
// writes, ReadFile reads; a second write replaces the first.
func checkRoundTrip(e *env) error {
	data := make([]byte, 0, 300)
	for i := range 256 {
		data = append(data, byte(i))
	}
	data = append(data, token()...)
	if err := e.sb.WriteFile(e.ctx, "conformance/data.bin", data); err != nil {
		return fmt.Errorf("write_file: %w", err)
	}
	res, err := e.exec([]string{"cat", "conformance/data.bin"}, ringfence.ExecOptions{})
	if err != nil {
		return err
	}
	if res.Stdout != string(data) {
		return fmt.Errorf("cat of a written file gave %d bytes, want the %d written", len(res.Stdout), len(data))
	}
	want := "made by a command " + token()
	if _, err := e.shOK(`printf '%s' "$WANT" > made.txt`, map[string]string{"WANT": want}); err != nil {
		return err
	}
	got, err := e.sb.ReadFile(e.ctx, "made.txt", 1<<10)
	if err != nil {
		return fmt.Errorf("read_file of a command's file: %w", err)
	}
	if string(got) != want {
		return fmt.Errorf("read_file gave %s, want what the command wrote", clip(string(got)))
	}
	return overwrite(e)
}

func overwrite(e *env) error {
	if err := e.sb.WriteFile(e.ctx, "made.txt", []byte("short")); err != nil {
		return fmt.Errorf("write_file over an existing file: %w", err)
	}
	got, err := e.sb.ReadFile(e.ctx, "made.txt", 1<<10)
	if err != nil || string(got) != "short" {
		return fmt.Errorf("after overwrite read_file gave %s (err %v), want \"short\"", clip(string(got)), err)
	}
	return nil
}

// checkCwdIsWorkspace: commands start in the workspace root, or in
// ExecOptions.Dir beneath it, and see the files there.
func checkCwdIsWorkspace(e *env) error {
	tok := token()
	if err := e.sb.WriteFile(e.ctx, "sub/dir/probe.txt", []byte(tok)); err != nil {
		return fmt.Errorf("write_file: %w", err)
	}
	for _, c := range []struct{ dir, path string }{{"", "sub/dir/probe.txt"}, {"sub/dir", "probe.txt"}, {"sub", "dir/probe.txt"}} {
		res, err := e.exec([]string{"cat", c.path}, ringfence.ExecOptions{Dir: c.dir})
		if err != nil {
			return err
		}
		if res.Stdout != tok {
			return fmt.Errorf("in dir %q, cat %s gave %s (exit %s)", c.dir, c.path, clip(res.Stdout), showCode(res))
		}
	}
	res, err := e.exec([]string{"sh", "-c", "echo here > here.txt"}, ringfence.ExecOptions{Dir: "sub"})
	if err != nil {
		return err
	}
	got, rerr := e.sb.ReadFile(e.ctx, "sub/here.txt", 1<<10)
	if rerr != nil || string(got) != "here\n" {
		return fmt.Errorf("a file written in dir \"sub\" (exit %s) is not at sub/here.txt: %v", showCode(res), rerr)
	}
	return nil
}

// checkReadBound: a read over its bound is refused, never cut.
func checkReadBound(e *env) error {
	data := bytes.Repeat([]byte("0123456789"), 10)
	if err := e.sb.WriteFile(e.ctx, "bound.txt", data); err != nil {
		return fmt.Errorf("write_file: %w", err)
	}
	if got, err := e.sb.ReadFile(e.ctx, "bound.txt", 99); err == nil {
		return fmt.Errorf("a 100-byte file read with a 99-byte bound gave %d bytes and no error", len(got))
	}
	got, err := e.sb.ReadFile(e.ctx, "bound.txt", 100)
	if err != nil || !bytes.Equal(got, data) {
		return fmt.Errorf("a 100-byte file read with a 100-byte bound: %d bytes, err %v", len(got), err)
	}
	return nil
}

func checkMissing(e *env) error {
	if got, err := e.sb.ReadFile(e.ctx, "no/such/file-"+token(), 1<<10); err == nil {
		return fmt.Errorf("reading a missing file gave %d bytes and no error", len(got))
	}
	return nil
}
