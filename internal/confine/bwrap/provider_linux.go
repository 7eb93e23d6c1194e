package bwrap

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// Descriptor numbers in bwrap's table: ExtraFiles[i] becomes 3+i.
const (
	fdArgs    = 3 // memfd with the NUL-separated bwrap options (--args)
	fdStatus  = 4 // bwrap's --json-status-fd
	fdShim    = 5 // the shim's status records
	fdSeccomp = 6 // memfd with the compiled seccomp filter
	fdPins    = 7 // the shim's image (shimImage); then the handoff socket, the pins and the opened entries, one per descriptor
)

// probeTimeout bounds each bwrap run Available makes.
const probeTimeout = 10 * time.Second

// unavailable is the typed error Available returns.
func unavailable(format string, args ...any) error {
	return &confine.UnavailableError{Tried: []string{Name}, Reasons: []string{fmt.Sprintf(format, args...)}}
}

func probe(opts Options) (hostInfo, error) {
	var h hostInfo
	var err error
	if h.path, err = findBwrap(opts.Path); err != nil {
		return h, err
	}
	if h.self, err = findSelf(opts.Self); err != nil {
		return h, err
	}
	h.notify = notifySupported()
	marker := markerPath(opts.ProbeCache, h.path)
	if h.version = cachedVersion(marker); h.version != "" {
		return h, nil
	}
	if h.version, err = version(h.path); err != nil {
		return h, err
	}
	if err := trial(h.path); err != nil {
		return h, err
	}
	remember(marker, h.version)
	return h, nil
}

// notifySupported asks the kernel whether SECCOMP_RET_USER_NOTIF exists,
// without installing anything.
func notifySupported() bool {
	action := uint32(unix.SECCOMP_RET_USER_NOTIF)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	return errno == 0
}

func findBwrap(path string) (string, error) {
	if path == "" {
		path = "bwrap"
	}
	found, err := exec.LookPath(path)
	if err != nil {
		return "", unavailable("bwrap is not installed (not found on PATH)")
	}
	abs, err := filepath.Abs(found)
	if err != nil {
		return "", unavailable("bwrap path cannot be made absolute: %v", err)
	}
	return abs, nil
}

// findSelf checks Options.Self, the binary to run as the exec shim where
// no image is carried; "" is the running binary, which needs no check: it
// is opened through /proc/self/exe (shimImage), wherever it was installed
// and whatever has happened to that path since.
func findSelf(self string) (string, error) {
	if self == "" {
		return "", nil
	}
	if !filepath.IsAbs(self) {
		return "", unavailable("exec shim path is not absolute")
	}
	if _, err := os.Stat(self); err != nil {
		return "", unavailable("exec shim binary is missing: %v", err)
	}
	return self, nil
}

// version runs `bwrap --version` ("bubblewrap 0.8.0").
func version(path string) (string, error) {
	out, err := run(path, "--version")
	if err != nil {
		return "", unavailable("bwrap --version failed: %s", firstLine(out, err))
	}
	v, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "bubblewrap ")
	if !ok {
		return "", unavailable("bwrap --version printed something unexpected")
	}
	return v, nil
}

// trial builds one throwaway sandbox with every namespace and option this
// backend uses, so an old bwrap (no --disable-userns) or a host that
// forbids user namespaces is found here, not at the first real command.
func trial(path string) error {
	if out, err := run(path, trialArgs(path)...); err != nil {
		return unavailable("bwrap cannot create a sandbox here: %s", firstLine(out, err))
	}
	return nil
}

func trialArgs(path string) []string {
	args := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--remount-ro", "/proc"}
	args = append(args, namespaceArgs(&policy.Policy{})...)
	return append(args, "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv",
		"--", path, "--version")
}

func run(path string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = []string{}
	return cmd.CombinedOutput()
}

// firstLine is bwrap's own diagnostic (never command text), bounded.
func firstLine(out []byte, err error) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if line == "" {
		return err.Error()
	}
	if len(line) > 200 {
		line = line[:200]
	}
	return line
}

// Stat is the real StatFunc: it follows links, as bwrap's mounts do.
func Stat(path string) (Kind, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return Missing, nil
	case err != nil:
		return Missing, err
	case fi.IsDir():
		return Dir, nil
	}
	return File, nil
}

// List is the real ListFunc: entries of dir, links not followed.
func List(dir string) ([]Entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(des))
	for _, de := range des {
		e := Entry{Name: de.Name(), Kind: File}
		switch {
		case de.Type()&fs.ModeSymlink != 0:
			e.Kind = Link
			if e.Target, err = os.Readlink(filepath.Join(dir, de.Name())); err != nil {
				return nil, err
			}
		case de.IsDir():
			e.Kind = Dir
		}
		out = append(out, e)
	}
	return out, nil
}
