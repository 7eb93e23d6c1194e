package conformance

import (
	"fmt"
	"path/filepath"
	"strings"
)

// The filesystem claim: commands cannot change host files outside the
// workspace. Each check makes host files in its own directory, tries one
// route to them from inside, and judges by the files on the host, not by
// what the command says.

func checkWriteOutside(e *env) error {
	victim, content, err := e.victim("victim.txt")
	if err != nil {
		return err
	}
	if err := e.inWorkDir(); err != nil {
		return err
	}
	doomed, doomedContent, err := e.victim("doomed.txt")
	if err != nil {
		return err
	}
	created := filepath.Join(e.host, "created.txt")
	vars := map[string]string{"VICTIM": victim, "DOOMED": doomed, "CREATED": created}
	res, err := e.attack(`echo pwned > "$VICTIM"; echo pwned >> "$VICTIM"; echo pwned > "$CREATED"; rm -f "$DOOMED"; mv "$VICTIM" moved.txt`, vars)
	if err != nil {
		return err
	}
	return routeErr("direct writes", res.Stderr, unchanged(victim, content), unchanged(doomed, doomedContent), absent(created))
}

func checkSymlinkEscape(e *env) error {
	victim, content, err := e.victim("victim.txt")
	if err != nil {
		return err
	}
	if err := e.inWorkDir(); err != nil {
		return err
	}
	vars := map[string]string{"VICTIM": victim, "HOSTDIR": e.host}
	res, err := e.attack(`ln -s "$VICTIM" sl && ln -s "$HOSTDIR" sd || echo NOPLANT; echo pwned > sl; echo pwned > sd/new.txt; mkdir sd/newdir`, vars)
	if err != nil {
		return err
	}
	if strings.Contains(res.Stdout, "NOPLANT") {
		return fmt.Errorf("could not plant a symlink in the workspace: %s", clip(res.Stderr))
	}
	return routeErr("a symlink", res.Stderr, unchanged(victim, content), absent(filepath.Join(e.host, "new.txt")), absent(filepath.Join(e.host, "newdir")))
}

func checkHardlinkEscape(e *env) error {
	victim, content, err := e.victim("victim.txt")
	if err != nil {
		return err
	}
	if err := e.inWorkDir(); err != nil {
		return err
	}
	res, err := e.attack(`ln "$VICTIM" hl && echo pwned >> hl`, map[string]string{"VICTIM": victim})
	if err != nil {
		return err
	}
	return routeErr("a hard link", res.Stderr, unchanged(victim, content))
}

func checkDotdotEscape(e *env) error {
	victim, content, err := e.victim("victim.txt")
	if err != nil {
		return err
	}
	if err := e.inWorkDir(); err != nil {
		return err
	}
	up := strings.Repeat("../", 64)
	vars := map[string]string{"REL": up + strings.TrimPrefix(victim, "/"), "HOSTDIR": e.host, "UP": up}
	res, err := e.attack(`echo pwned >> "$REL"; cd "$UP" && cd ".$HOSTDIR" && echo pwned > new.txt`, vars)
	if err != nil {
		return err
	}
	return routeErr("..", res.Stderr, unchanged(victim, content), absent(filepath.Join(e.host, "new.txt")))
}

func checkProcRootEscape(e *env) error {
	victim, content, err := e.victim("victim.txt")
	if err != nil {
		return err
	}
	if err := e.inWorkDir(); err != nil {
		return err
	}
	vars := map[string]string{"VICTIM": victim, "HOSTDIR": e.host}
	res, err := e.attack(`for r in /proc/self/root /proc/1/root /proc/$$/root /proc/$PPID/root /proc/1/cwd/..; do echo pwned >> "$r$VICTIM"; echo pwned > "$r$HOSTDIR/new.txt"; done`, vars)
	if err != nil {
		return err
	}
	return routeErr("/proc/*/root", res.Stderr, unchanged(victim, content), absent(filepath.Join(e.host, "new.txt")))
}

// routeErr joins what a route changed on the host into one failure.
func routeErr(route, stderr string, errs ...error) error {
	if err := joinErrs(errs); err != nil {
		return fmt.Errorf("through %s: %w (stderr %s)", route, err, clip(stderr))
	}
	return nil
}
