package initproc

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"github.com/ringfence/ringfence/internal/confine/initproc/execstage"
	"github.com/ringfence/ringfence/internal/memfd"
	"golang.org/x/sys/unix"
)

// execSpec is what the exec stage reads on SpecFD: the command, resolved.
type execSpec struct {
	Prog string   `json:"prog"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
}

// The exec stage's report on StatusFD: nothing at all when the command's
// exec succeeded (the descriptor is close-on-exec), else one of these
// bytes followed by the errno, 4 bytes little-endian.
const (
	reportExec  = 'x' // the command's execve failed
	reportScope = 's' // the nested domain could not be made
)

// nestScopes are the scopes of the command's own domain (ABI 6).
const nestScopes = ll.ScopeSignal | ll.ScopeAbstractUnixSocket

// nestExe is the init's binary, resolved before Landlock applies (Spec.Nest).
var nestExe string

// nestable: Landlock scopes exist (ABI 6). Before, a nested domain would
// hold nothing, the command can signal its init, and the backend reports
// so (its enforcement and doctor name the ABI).
func nestable() bool {
	abi, err := ll.LandlockGetABIVersion()
	return err == nil && abi >= 6
}

// stageFD is the sealed memfd of the carried exec stage (package
// execstage, a freestanding program: no Go runtime to start),
// close-on-exec, or -1 where the init's own image runs the stage
// (execStage): none is carried, none could be put in a memfd, or
// Spec.GoExecStage asks for it.
var stageFD = -1

// prepareNest readies the exec stage before the init's own Landlock
// domain applies.
//
// Where a stage is carried, it goes into a memfd sealed against writes,
// executed through its descriptor: Landlock does not restrict a file of
// an internal mount (and refuses a rule for one), and nothing can change
// it.
//
// Otherwise it names the binary the Go stage runs — the init's own image
// (SelfExe), never the path it was installed at, which may name another
// file by now — and lets the init's domain execute it (an allow-list
// baseline may not cover it otherwise). Landlock opens the rule's path
// following the link, so the rule holds exactly that image's inode. The
// carried init runs from a sealed memfd too and needs no rule.
//
// Where no memfd can be made (vm.memfd_noexec=2, a filter refusing
// memfd_create: where initimage's init falls back to the binary too), the
// Go stage runs: slower, and the same layer.
func prepareNest(spec *Spec) error {
	if !nestable() {
		return nil // no stage runs (start)
	}
	if img := execstage.Image(); img != nil && !spec.GoExecStage {
		fd, err := stageMemfd("ringfence-exec-stage", img)
		if err == nil {
			stageFD = fd
			return nil
		}
	}
	sealed, err := sealedImage()
	if err != nil {
		return err
	}
	nestExe = SelfExe
	if !sealed {
		spec.Landlock.Read = append(spec.Landlock.Read, SelfExe)
	}
	return nil
}

// stageMemfd makes the carried stage's memfd (a variable: tests make it
// fail).
var stageMemfd = memfd.Sealed

// stageImageFD is the carried stage's memfd in the stage: handed over
// among its ProcAttr.Files, so ForkExec's own shuffling of descriptors
// in the child can never replace it before the execve of
// /proc/self/fd/4 (a descriptor the child merely inherited could be,
// whatever its number). The stage makes it close-on-exec.
const stageImageFD = 4

// sealedImage reports whether this process runs from a memfd sealed
// against writes (the carried init).
func sealedImage() (bool, error) {
	fd, err := unix.Open(SelfExe, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, &os.PathError{Op: "open", Path: SelfExe, Err: err}
	}
	defer unix.Close(fd)
	seals, err := unix.FcntlInt(uintptr(fd), unix.F_GET_SEALS, 0)
	if err != nil { // EINVAL: not a file that takes seals (a real binary)
		return false, nil
	}
	return seals&unix.F_SEAL_WRITE != 0, nil
}

// startNested starts the command through the exec stage and reports it
// as ForkExec would: its pid once the command's own exec succeeded, or
// the errno of its failure (a *stageError when the domain failed).
func startNested(prog string, spec *Spec) (int, error) {
	repR, repW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer repR.Close()
	childEnds := []*os.File{repW}
	// The stage execs into the command: it must already lead the session
	// on the command's terminal, as a direct child would.
	attr := &syscall.ProcAttr{Sys: childAttr(stdioTerminals())}
	var path string
	var argv []string
	var specData []byte
	var specW *os.File
	if stageFD >= 0 {
		// The carried stage: the command's argv after its own, the
		// command's environment (a static program without an interpreter:
		// nothing in it acts on the stage), the report at 3, its image at
		// 4.
		path = "/proc/self/fd/" + strconv.Itoa(stageImageFD)
		argv = append([]string{path, prog}, spec.Argv...)
		attr.Env, attr.Files = spec.Env, []uintptr{0, 1, 2, repW.Fd(), uintptr(stageFD)}
	} else {
		var specR *os.File
		specData, err = json.Marshal(execSpec{Prog: prog, Argv: spec.Argv, Env: spec.Env})
		if err == nil {
			specR, specW, err = os.Pipe()
		}
		if err != nil {
			repW.Close()
			return 0, err
		}
		defer specW.Close()
		childEnds = append(childEnds, specR)
		path, argv = nestExe, []string{nestExe, Arg, ExecStage}
		attr.Env, attr.Files = initEnv, []uintptr{0, 1, 2, specR.Fd(), repW.Fd()}
	}
	pid, err := syscall.ForkExec(path, argv, attr)
	for _, f := range childEnds {
		f.Close()
	}
	if err != nil {
		if stageFD >= 0 && (errors.Is(err, unix.E2BIG) || errors.Is(err, unix.EINVAL)) {
			// The command's argv or environment (too long, or holding a
			// NUL), which the carried stage takes as its own: what the
			// command's own exec would have said.
			return 0, err
		}
		return 0, stage("nest", err)
	}
	if specW != nil {
		_, _ = specW.Write(specData) // a stage that died unread is reaped below
		specW.Close()
	}
	msg, _ := io.ReadAll(io.LimitReader(repR, 16))
	if len(msg) == 0 {
		// The command's exec closed the report: it runs. (A stage that
		// died before its exec also closes it; the init then reaps it and
		// reports its end: "may have run" is the safe side.)
		return pid, nil
	}
	var ws unix.WaitStatus
	_, _ = unix.Wait4(pid, &ws, 0, nil)
	errno := unix.EIO
	if len(msg) == 5 {
		errno = syscall.Errno(binary.LittleEndian.Uint32(msg[1:]))
	}
	if msg[0] == reportExec {
		return 0, errno
	}
	return 0, stage("nest", errno)
}

// execStage is the exec stage: a fresh exec of the init, forked by it,
// with everything the init applied inherited (Landlock, seccomp,
// no_new_privs, no capabilities). It restricts itself with a scoped
// domain nested in the init's and executes the command. It never returns.
func execStage() {
	runtime.LockOSThread() // the domain is this thread's; execve keeps it
	unix.CloseOnExec(SpecFD)
	unix.CloseOnExec(StatusFD)
	report := os.NewFile(StatusFD, "exec-report")
	f := os.NewFile(SpecFD, "exec-spec")
	data, err := io.ReadAll(io.LimitReader(f, maxSpec))
	f.Close()
	var es execSpec
	if err == nil {
		err = json.Unmarshal(data, &es)
	}
	if err == nil && (es.Prog == "" || len(es.Argv) == 0) {
		err = unix.EINVAL
	}
	if err != nil {
		stageFail(report, reportScope, err)
	}
	if err := nestDomain(); err != nil {
		stageFail(report, reportScope, err)
	}
	err = unix.Exec(es.Prog, es.Argv, es.Env)
	stageFail(report, reportExec, err)
}

// nestDomain restricts this thread with a domain adding only the scopes.
// Its filesystem and network rules are the init's: domains stack. Every
// Landlock layer refuses reparenting (a link or rename into another
// directory, LANDLOCK_ACCESS_FS_REFER) unless it grants it, handled or
// not, so this layer handles REFER and grants it everywhere, leaving the
// init's layer alone to decide (without it, a cross-directory rename in
// the workspace fails with EXDEV).
func nestDomain() error {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 6 {
		return unix.EOPNOTSUPP
	}
	fd, err := ll.LandlockCreateRuleset(&ll.RulesetAttr{HandledAccessFS: ll.AccessFSRefer, Scoped: nestScopes}, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	root, err := unix.Open("/", unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(root)
	if err := ll.LandlockAddPathBeneathRule(fd, &ll.PathBeneathAttr{AllowedAccess: ll.AccessFSRefer, ParentFd: root}, 0); err != nil {
		return err
	}
	// no_new_privs is inherited from the init; set again in case.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	return ll.LandlockRestrictSelf(fd, 0)
}

func stageFail(report *os.File, kind byte, err error) {
	errno := unix.EIO
	var e syscall.Errno
	if errors.As(err, &e) {
		errno = e
	}
	msg := []byte{kind, 0, 0, 0, 0}
	binary.LittleEndian.PutUint32(msg[1:], uint32(errno))
	_, _ = report.Write(msg)
	os.Exit(ExitSetup)
}
