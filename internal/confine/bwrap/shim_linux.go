package bwrap

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/seccomp"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/policy"
)

// Shim is the body of `ringfence __exec FD [--unset NAME]… [--supervise
// [--sock ±PATH]…] -- ARGV…`, which bwrap executes inside the sandbox in
// place of the command. The caller passes os.Args[2:] and exits with the
// result.
//
// It removes the named variables (bwrap's --chdir sets PWD), marks every
// descriptor above stderr close-on-exec (so neither FD nor anything bwrap
// passed through reaches the command), and resolves ARGV[0] on PATH. Then:
//
//   - by default it writes Started to FD and executes ARGV in place; if
//     execve returns it writes Failed with the errno and exits 127 (not
//     found) or 126 (not executable), as a shell would;
//   - with --supervise it stays as the command's parent (see supervise):
//     it filters the command's unix-socket connects, forwards signals, and
//     writes the command's exact exit (code or signal) to FD.
func Shim(args []string) int {
	o, err := parseShim(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ringfence __exec: usage: __exec FD [--unset NAME]... [--supervise [--sock ±PATH]...] -- PROGRAM [ARG...]")
		return 125
	}
	for _, name := range o.unset {
		_ = os.Unsetenv(name)
	}
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		markAllCloexec()
	}
	out := os.NewFile(uintptr(o.fd), "status")
	path, err := lookPath(o.argv[0])
	if err != nil {
		return execFailed(out, err)
	}
	if o.supervise {
		return supervise(out, path, o)
	}
	_ = status.Write(out, status.Event{Kind: status.Started, Pid: os.Getpid()})
	return execFailed(out, unix.Exec(path, o.argv, os.Environ()))
}

type shimOpts struct {
	fd        int
	unset     []string
	supervise bool
	sockets   []string          // "+PATH" allows, "-PATH" refuses; the last containing rule decides
	protect   []string          // missing protected paths the guard refuses to create
	names     seccomp.NameGuard // names protected at every depth (no Roots: none)
	argv      []string
}

func parseShim(args []string) (shimOpts, error) {
	var o shimOpts
	bad := errors.New("usage")
	if len(args) == 0 {
		return o, bad
	}
	fd, err := strconv.Atoi(args[0])
	if err != nil || fd <= 2 {
		return o, bad
	}
	o.fd = fd
	rest := args[1:]
	for len(rest) > 0 && rest[0] != "--" {
		switch {
		case rest[0] == "--supervise":
			o.supervise, rest = true, rest[1:]
		case len(rest) >= 2 && rest[0] == "--unset":
			o.unset, rest = append(o.unset, rest[1]), rest[2:]
		case len(rest) >= 2 && rest[0] == "--sock" && (strings.HasPrefix(rest[1], "+/") || strings.HasPrefix(rest[1], "-/")):
			o.sockets, rest = append(o.sockets, rest[1]), rest[2:]
		case len(rest) >= 2 && rest[0] == "--protect" && strings.HasPrefix(rest[1], "/"):
			o.protect, rest = append(o.protect, rest[1]), rest[2:]
		case len(rest) >= 2 && rest[0] == "--names-root" && strings.HasPrefix(rest[1], "/"):
			o.names.Roots, rest = append(o.names.Roots, rest[1]), rest[2:]
		case len(rest) >= 2 && rest[0] == "--names-extra" && policy.ValidProtectedName(rest[1]):
			o.names.Names.Extra, rest = append(o.names.Names.Extra, rest[1]), rest[2:]
		case rest[0] == "--names-git-writable":
			o.names.Names.GitWritable, rest = true, rest[1:]
		default:
			return o, bad
		}
	}
	if len(rest) < 2 || rest[1] == "" {
		return o, bad
	}
	o.argv = rest[1:]
	return o, nil
}

// lookPath resolves a bare name against the sandbox's PATH, as execvp
// would; a name with a slash is used as given.
func lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	p, err := exec.LookPath(name)
	if errors.Is(err, exec.ErrDot) {
		return p, nil
	}
	if err != nil {
		return "", unix.ENOENT
	}
	return p, nil
}

// execFailed reports why the program could not be executed, on the status
// channel (evidence) and briefly on stderr (for a person), naming the
// errno but never the command.
func execFailed(out *os.File, err error) int {
	var errno unix.Errno
	if !errors.As(err, &errno) {
		errno = unix.ENOENT
	}
	ev := status.Event{Kind: status.Failed, Stage: "exec", Errno: unix.ErrnoName(errno), Reason: status.NotExecutable}
	code := 126
	if errno == unix.ENOENT || errno == unix.ENOTDIR {
		ev.Reason, code = status.NotFound, 127
	}
	ev.Detail = errno.Error()
	_ = status.Write(out, ev)
	fmt.Fprintf(os.Stderr, "ringfence: cannot execute the command: %s\n", errno.Error())
	return code
}

// markAllCloexec is the fallback for kernels before close_range(2).
func markAllCloexec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
