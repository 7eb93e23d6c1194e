package execpath

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// PathOf returns the PATH that env sets (the last entry wins, as os/exec
// dedups an environment), or def when env sets none.
func PathOf(env []string, def string) string {
	path := def
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return path
}

// Dirs are the directories of path that Find searches, in order: the
// absolute ones only. Empty and relative entries name the command's
// working directory (model-written) and are dropped, as os/exec refuses
// their results with exec.ErrDot.
func Dirs(path string) []string {
	var dirs []string
	for _, dir := range filepath.SplitList(path) {
		if filepath.IsAbs(dir) {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// Find resolves name against path the way execvp does, minus the
// dot-relative entries (see Dirs). A name with a slash is returned as is.
// The error is an errno a status event can carry: ENOENT when no
// directory holds it (or name is empty), EACCES when one holds a file
// that cannot be executed and none holds one that can.
func Find(name, path string) (string, error) {
	if name == "" {
		return "", unix.ENOENT
	}
	if strings.Contains(name, "/") {
		return name, nil
	}
	denied := false
	for _, dir := range Dirs(path) {
		cand := filepath.Join(dir, name)
		fi, err := os.Stat(cand)
		if err != nil || fi.IsDir() {
			continue
		}
		if unix.Access(cand, unix.X_OK) == nil {
			return cand, nil
		}
		denied = true
	}
	if denied {
		return "", unix.EACCES
	}
	return "", unix.ENOENT
}
