package conformance

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/pathrule"
)

// refusals is one model path per refusal reason of package pathrule. The
// absolute one names a file in the check's host directory, so a sandbox
// that honours it can be caught writing there.
func refusals(host string) []struct {
	reason pathrule.Reason
	path   string
} {
	return []struct {
		reason pathrule.Reason
		path   string
	}{
		{pathrule.Empty, ""},
		{pathrule.Dot, "."},
		{pathrule.Absolute, filepath.Join(host, "absolute.txt")},
		{pathrule.Drive, "C:conformance.txt"},
		{pathrule.Home, "~/conformance.txt"},
		{pathrule.Backslash, `dir\conformance.txt`},
		{pathrule.NUL, "conformance\x00.txt"},
		{pathrule.Escape, "sub/../../conformance-escape-" + token() + ".txt"},
	}
}

func pathChecks() []check {
	var out []check
	for i, r := range refusals("") {
		out = append(out, check{name: "paths/refuse-" + string(r.reason), run: func(e *env) error {
			return checkRefusal(e, refusals(e.host)[i].path)
		}})
	}
	return out
}

// checkRefusal: ReadFile and WriteFile both refuse path with an error
// wrapping pathrule.ErrPathRefused, and nothing is written.
func checkRefusal(e *env, path string) error {
	var errs []error
	if _, err := e.sb.ReadFile(e.ctx, path, 1<<10); !errors.Is(err, pathrule.ErrPathRefused) {
		errs = append(errs, fmt.Errorf("read_file %q: got %v, want an error wrapping pathrule.ErrPathRefused", path, err))
	}
	if err := e.sb.WriteFile(e.ctx, path, []byte("refused")); !errors.Is(err, pathrule.ErrPathRefused) {
		errs = append(errs, fmt.Errorf("write_file %q: got %v, want an error wrapping pathrule.ErrPathRefused", path, err))
	}
	if strings.HasPrefix(path, e.host) {
		errs = append(errs, absent(path))
	}
	return joinErrs(errs)
}

// checkRefuseExecDir: a working directory outside the workspace is refused
// before anything runs.
func checkRefuseExecDir(e *env) error {
	var errs []error
	for _, dir := range []string{"..", "sub/../..", e.host} {
		res, err := e.sb.Exec(e.ctx, []string{"sh", "-c", "echo ran > ran.txt"}, ringfence.ExecOptions{Dir: dir})
		if !errors.Is(err, pathrule.ErrPathRefused) {
			errs = append(errs, fmt.Errorf("dir %q: got result %v and error %v, want an error wrapping pathrule.ErrPathRefused", dir, res != nil, err))
		}
	}
	errs = append(errs, absent(filepath.Join(e.host, "ran.txt")))
	return joinErrs(errs)
}

// checkFileAPISymlinkOut plants links pointing outside the workspace with a
// command, then goes through them with the file methods: they must neither
// read the host file nor write through to it.
func checkFileAPISymlinkOut(e *env) error {
	victim, content, err := e.victim("victim.txt")
	if err != nil {
		return err
	}
	if err := e.inWorkDir(); err != nil {
		return err
	}
	vars := map[string]string{"VICTIM": victim, "HOSTDIR": e.host}
	if _, err := e.shOK(`ln -s "$VICTIM" link.txt && ln -s "$HOSTDIR" linkdir`, vars); err != nil {
		return fmt.Errorf("planting the links: %w", err)
	}
	var errs []error
	if got, err := e.sb.ReadFile(e.ctx, workDir+"/link.txt", 1<<10); err == nil && string(got) == content {
		errs = append(errs, errors.New("read_file followed a link out of the workspace"))
	}
	if got, err := e.sb.ReadFile(e.ctx, workDir+"/linkdir/victim.txt", 1<<10); err == nil && string(got) == content {
		errs = append(errs, errors.New("read_file followed a directory link out of the workspace"))
	}
	e.sb.WriteFile(e.ctx, workDir+"/link.txt", []byte("pwned"))
	e.sb.WriteFile(e.ctx, workDir+"/linkdir/new.txt", []byte("pwned"))
	e.sb.WriteFile(e.ctx, workDir+"/linkdir/deeper/new.txt", []byte("pwned"))
	errs = append(errs, unchanged(victim, content), absent(filepath.Join(e.host, "new.txt")), absent(filepath.Join(e.host, "deeper")))
	return joinErrs(errs)
}

// checkFileAPIHardlinkOut: a hard link a command makes to a host file (where
// it can) must not let WriteFile change the host file.
func checkFileAPIHardlinkOut(e *env) error {
	victim, content, err := e.victim("victim.txt")
	if err != nil {
		return err
	}
	if err := e.inWorkDir(); err != nil {
		return err
	}
	res, err := e.attack(`ln "$VICTIM" hard.txt && echo LINKED`, map[string]string{"VICTIM": victim})
	if err != nil {
		return err
	}
	if !strings.Contains(res.Stdout, "LINKED") {
		return nil // the sandbox keeps the host file out of reach of a link at all
	}
	e.sb.WriteFile(e.ctx, workDir+"/hard.txt", []byte("pwned"))
	if err := unchanged(victim, content); err != nil {
		return fmt.Errorf("write_file through a hard link: %w", err)
	}
	return nil
}
