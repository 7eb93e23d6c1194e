package shim

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/seccomp"
	"github.com/ringfence/ringfence/internal/execpath"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/policy"
)

// Main is the body of `ringfence __exec FD [--unset NAME]… [--proxy FD] [--supervise
// [--sock ±PATH]… [--protect PATH]…] -- ARGV…`, which bwrap executes
// inside the sandbox as its pid 1 (--as-pid-1: there is no bwrap init).
// The caller passes os.Args[2:] and exits with the result.
//
// Before anything else it makes itself non-dumpable and asks for SIGKILL
// when its parent (bwrap, outside the sandbox) dies. It removes the named
// variables (bwrap's --chdir sets PWD), marks every descriptor above stderr
// close-on-exec (so neither FD nor anything bwrap passed through reaches
// the command), and resolves ARGV[0] on PATH. Then it stays as the
// command's parent and the sandbox's reaper (see runCommand): every other
// process in the sandbox is the command or one of its descendants, under
// the filters the shim installed. With --supervise it also filters the
// command's unix-socket connects (and, with --protect, its creations).
func Main(args []string) int {
	o, err := parseShim(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ringfence __exec: usage: __exec FD [--unset NAME]... [--proxy FD] [--supervise [--sock ±PATH]... [--protect PATH]...] -- PROGRAM [ARG...]")
		return 125
	}
	out := os.NewFile(uintptr(o.fd), "status")
	// Not dumpable: the command (same uid, no capability) can then neither
	// open /proc/1/mem, environ or fd, nor kcmp, pidfd_getfd or
	// process_madvise it. Fail closed if the kernel refuses.
	if err := harden(); err != nil {
		_ = status.Write(out, status.Event{Kind: status.Failed, Reason: status.SetupFailed, Stage: "shim",
			Detail: "cannot harden the sandbox's init: " + err.Error()})
		return 125
	}
	for _, name := range o.unset {
		_ = os.Unsetenv(name)
	}
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		markAllCloexec()
	}
	path, err := lookPath(o.argv[0])
	if err != nil {
		return execFailed(out, err)
	}
	return runCommand(out, path, o)
}

// harden makes the shim non-dumpable and bound to its parent's life. bwrap
// already set the parent-death signal before executing it; setting it
// again costs nothing and does not depend on bwrap's version.
func harden() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return err
	}
	return unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
}

type shimOpts struct {
	fd        int
	unset     []string
	supervise bool
	proxy     int               // the handoff descriptor under the domains network; 0: none
	sockets   []string          // "+PATH" allows, "-PATH" refuses, "=PATH" allows a host listener too; the last containing rule decides
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
		case len(rest) >= 2 && rest[0] == "--proxy":
			fd, err := strconv.Atoi(rest[1])
			if err != nil || fd <= 2 || fd == o.fd {
				return o, bad
			}
			o.proxy, rest = fd, rest[2:]
		case rest[0] == "--supervise":
			o.supervise, rest = true, rest[1:]
		case len(rest) >= 2 && rest[0] == "--unset":
			o.unset, rest = append(o.unset, rest[1]), rest[2:]
		case len(rest) >= 2 && rest[0] == "--sock" && (strings.HasPrefix(rest[1], "+/") || strings.HasPrefix(rest[1], "-/") || strings.HasPrefix(rest[1], "=/")):
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
// would, minus the empty and relative entries (execpath): they name the
// workspace, where the model can plant a program. A name with a slash is
// used as given.
func lookPath(name string) (string, error) {
	return execpath.Find(name, os.Getenv("PATH"))
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
