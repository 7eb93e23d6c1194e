package initproc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/status"
)

// maxSpec bounds the spec the init will read: a policy is a few KiB.
const maxSpec = 4 << 20

// Main is the sandbox init. It never returns: it exits with the command's
// exit code (128+signal when killed) or ExitSetup when confinement failed,
// having said which on the status channel.
func Main() {
	// Capabilities, securebits and the bounding set are per thread, and the
	// command is forked from the calling thread: pin the main goroutine so
	// every step below, and the fork, happen on one thread.
	runtime.LockOSThread()
	if len(os.Args) > 2 && os.Args[2] == ExecStage {
		execStage()
	}
	unix.CloseOnExec(StatusFD)
	st := os.NewFile(StatusFD, "status")
	os.Exit(run(st))
}

// stageError names the confinement step that failed.
type stageError struct {
	stage string
	err   error
}

func (e *stageError) Error() string { return e.stage + ": " + e.err.Error() }
func (e *stageError) Unwrap() error { return e.err }

func stage(name string, err error) error {
	if err == nil {
		return nil
	}
	return &stageError{name, err}
}

func run(st *os.File) int {
	// The carried init's own image (or nothing): the init never needs it,
	// and nothing it starts may hold it.
	_ = unix.Close(ImageFD)
	// Catching and dropping the signals the init does not use costs a
	// round trip to the runtime's signal thread per signal (0.6–2 ms on
	// the shared test machine): begun now, it overlaps the wait for the
	// spec and the set-up, and the command is started only once it is
	// done (beDeaf).
	startDeafening()
	gate, gated, err := ParseGate(initArgs())
	if err != nil {
		reportSetup(st, stage("gate", err))
		return ExitSetup
	}
	spec, err := readSpec()
	var listener *os.File
	if err == nil {
		listener, err = confineSelf(spec)
	}
	if err != nil {
		reportSetup(st, err)
		return ExitSetup
	}
	if spec.Probe {
		return 0
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := supervise(ctx, listener, &spec.Seccomp, &spec.Landlock); err != nil {
		reportSetup(st, stage("seccomp", err))
		return ExitSetup
	}
	if gated {
		// Deaf before the wait: blocked in read(2) on the gate, the
		// one P reaches the deafening goroutine only when sysmon hands
		// it over (up to ~10 ms), and a signal in that window (a
		// kill-sent SIGTRAP or SIGSYS: a runtime throw) ended the init
		// silently (rt16, TestRTSignalStormDuringSetUp). A channel
		// wait yields the P at once.
		<-deafDone
		// Confined and ready: only the command's start waits for the
		// supervisor to have placed the init under its limits.
		if err := awaitGate(gate); err != nil {
			reportSetup(st, stage("gate", err))
			return ExitSetup
		}
	}
	if spec.Session {
		return serveSession(spec, st) // session_linux.go
	}
	return startAndReap(spec, st)
}

// initArgs are the init's arguments after Arg.
func initArgs() []string {
	if len(os.Args) < 3 {
		return nil
	}
	return os.Args[2:]
}

func readSpec() (*Spec, error) {
	f := os.NewFile(SpecFD, "spec")
	data, err := io.ReadAll(io.LimitReader(f, maxSpec))
	f.Close()
	if err != nil {
		return nil, stage("spec", err)
	}
	var spec Spec
	if err := json.Unmarshal(data, &spec); err != nil {
		return nil, stage("spec", err)
	}
	if len(spec.Argv) == 0 && !spec.Probe && !spec.Session {
		return nil, stage("spec", errors.New("empty argv"))
	}
	return &spec, nil
}

// confineSelf applies every restriction to the init itself, in the order
// privilege allows: the view and namespace set-up need the capabilities
// the user namespace gave us, Landlock needs no_new_privs, dropping
// capabilities needs CAP_SETPCAP, and seccomp comes last because it
// refuses the mount and prctl calls the earlier steps make. The command,
// forked afterwards, inherits all of it.
func confineSelf(spec *Spec) (*os.File, error) {
	// Anything the supervisor leaked without close-on-exec (a canary, an
	// agent's socket) must not reach the command. Marking rather than
	// closing leaves the Go runtime's own descriptors alone.
	if err := unix.CloseRange(SpecFD+1, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return nil, stage("fds", err)
	}
	if spec.View != nil {
		if err := buildView(spec.View); err != nil {
			return nil, err
		}
	}
	if spec.Subreaper {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return nil, stage("subreaper", err)
		}
	}
	if spec.Hostname != "" {
		if err := unix.Sethostname([]byte(spec.Hostname)); err != nil {
			return nil, stage("uts", err)
		}
	}
	if spec.Probe {
		// Available's trial ends here: namespaces, the view and the host
		// name are what a host (a container's runtime) may refuse.
		return nil, nil
	}
	if spec.DenyVsock {
		if err := denyVsock(); err != nil {
			return nil, stage("network", err)
		}
	}
	if spec.Proxy != nil {
		if err := startProxy(spec.Proxy); err != nil {
			return nil, stage("network", err)
		}
	}
	if spec.Loopback {
		if err := loopbackUp(); err != nil {
			return nil, stage("network", err)
		}
	}
	if spec.Nest {
		if err := prepareNest(spec); err != nil {
			return nil, stage("nest", err)
		}
	}
	if anyCaps() {
		// Dropping capabilities on every thread (psx) lists this process's
		// threads in /proc when the binary is built with cgo (as test
		// binaries are): an allow-list baseline must not refuse it that.
		spec.Landlock.Read = append(spec.Landlock.Read, "/proc/"+strconv.Itoa(os.Getpid())+"/task")
	}
	if err := applyLandlock(&spec.Landlock); err != nil {
		return nil, stage("landlock", err)
	}
	if err := dropPrivileges(); err != nil {
		return nil, stage("caps", err)
	}
	if spec.Session {
		if err := keepUmask(); err != nil { // umask_linux.go
			return nil, stage("umask", err)
		}
	}
	listener, err := installSeccomp(&spec.Seccomp)
	return listener, stage("seccomp", err)
}

func reportSetup(st *os.File, err error) {
	ev := status.Event{Kind: status.Failed, Reason: status.SetupFailed, Stage: "setup"}
	var se *stageError
	if errors.As(err, &se) {
		ev.Stage = se.stage
		ev.Detail = "confinement step failed: " + se.stage
	}
	var errno unix.Errno
	if errors.As(err, &errno) {
		ev.Errno = unix.ErrnoName(errno)
	}
	_ = status.Write(st, ev)
}
