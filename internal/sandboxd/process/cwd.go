package process

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/ringfence/ringfence/pathrule"
)

// Errors of a requested working directory.
var (
	// errCwdOutside: the cwd names a place outside the sandbox root
	// (PERMISSION_DENIED, as the standard says).
	errCwdOutside = errors.New("cwd is outside the sandbox root")
	// errCwdMissing: the cwd does not exist (NOT_FOUND).
	errCwdMissing = errors.New("cwd does not exist")
	// errCwdNotDir: the cwd is not a directory (FAILED_PRECONDITION).
	errCwdNotDir = errors.New("cwd is not a directory")
)

// cwdModelPath turns a requested cwd into a path relative to the root
// ("" is the root itself), lexically: relative paths are taken beneath the
// root; absolute ones only when they lie beneath the host root or the
// mount path the commands see (/workspace), never re-rooted, so "/etc" is
// refused rather than quietly meaning root/etc. A ".." that climbs above
// the root, a NUL, or a backslash is refused (errCwdOutside).
func cwdModelPath(cwd, hostRoot, mountPath string) (string, error) {
	if strings.ContainsAny(cwd, "\x00\\") {
		return "", errCwdOutside
	}
	if cwd == "" {
		return "", nil
	}
	if filepath.IsAbs(cwd) {
		c := filepath.Clean(cwd)
		rel, ok := "", false
		for _, base := range []string{hostRoot, mountPath} {
			if base == "" || !filepath.IsAbs(base) || filepath.Clean(base) == "/" {
				continue // a root of "/" would make every path "beneath" it
			}
			base = filepath.Clean(base)
			if c == base {
				return "", nil
			}
			if r, cut := strings.CutPrefix(c, base+"/"); cut {
				rel, ok = r, true
				break
			}
		}
		if !ok {
			return "", errCwdOutside
		}
		cwd = rel
	}
	clean, err := pathrule.Clean(cwd)
	if err != nil {
		if filepath.Clean(cwd) == "." {
			return "", nil // "." and "./": the root
		}
		return "", errCwdOutside
	}
	return clean, nil
}

// checkCwd resolves rel physically beneath hostRoot: every link on the way
// is followed and the place it lands must still be beneath the (resolved)
// root, and be a directory. The command chdirs there inside its sandbox,
// where it could `cd` anywhere its view shows anyway; this check is what
// the standard promises (a cwd escaping the root is PERMISSION_DENIED),
// not a confinement boundary.
func checkCwd(hostRoot, rel string) error {
	root, err := filepath.EvalSymlinks(hostRoot)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, rel))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errCwdMissing
		}
		if errors.Is(err, os.ErrPermission) {
			return errCwdOutside
		}
		return err
	}
	if real != root && !strings.HasPrefix(real, root+"/") {
		return errCwdOutside
	}
	fi, err := os.Stat(real)
	if err != nil {
		return errCwdMissing
	}
	if !fi.IsDir() {
		return errCwdNotDir
	}
	return nil
}
