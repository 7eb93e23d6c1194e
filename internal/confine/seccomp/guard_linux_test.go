package seccomp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// The scene: an empty temp "workspace" in which .bashrc, .claude and
// .git/hooks (and everything beneath the last two) are protected and
// missing. A guarded client tries to create them every way it can and does
// ordinary work beside them; a control client does the same unfiltered.
const (
	pythonEnv  = "RINGFENCE_SECCOMP_PYTHON"
	racyEnv    = "RINGFENCE_SECCOMP_RACY"    // "1": the check-then-continue supervisor
	onlyEnv    = "RINGFENCE_SECCOMP_ONLY"    // "race": run only the race
	guardedEnv = "RINGFENCE_SECCOMP_GUARDED" // set for the guarded client
	secretEnv  = "RINGFENCE_SECCOMP_SECRET"  // "pid:fd" of a descriptor the command must not reach
	otherEnv   = "RINGFENCE_SECCOMP_OTHER"   // "pid:fd" of another process's descriptor
	confineEnv = "RINGFENCE_SECCOMP_CONFINE" // "1": Rules.Confine lands the supervisor's creations in Landlock
)

func init() {
	helpers["guardsup"] = helperGuardSupervisor
	helpers["guardclient"] = helperGuardClient
}

func protectedIn(ws string) Protect {
	return Protect{ws + "/.bashrc", ws + "/.claude", ws + "/.git/hooks"}
}

// helperGuardSupervisor is the sandbox init in miniature, as in
// helperSupervisor: filter this thread, supervise from the others, run the
// client in the workspace.
func helperGuardSupervisor() int {
	ws := os.Getenv(dirEnv)
	flags := []Flag{}
	if os.Getenv(modeEnv) != "all" {
		runtime.LockOSThread() // never unlocked: the filtered thread dies with us
		flags = append(flags, ThisThread)
	}
	l, err := buildInstall(Options{GuardCreate: true}, flags...)
	if err != nil || l == nil {
		fmt.Printf("install=%v\n", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	rules := protectedIn(ws).Rules(nil)
	if os.Getenv(confineEnv) == "1" {
		rules.Confine = func() error { return landlockThread(ws + "/allowed") }
	}
	go func() { done <- supervise(ctx, l, rules, os.Getenv(racyEnv) == "1") }()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=guardclient", guardedEnv+"=1")
	if secret, err := os.Open(os.Getenv(secretEnv)); err == nil { // the init's own descriptor
		defer secret.Close()
		cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d:%d", secretEnv, os.Getpid(), secret.Fd()))
	}
	cmd.Dir = ws
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	runErr := cmd.Run()
	cancel()
	select {
	case err := <-done:
		fmt.Printf("supervise-return=%v\n", errors.Is(err, context.Canceled))
	case <-time.After(10 * time.Second):
		fmt.Println("supervise-return=hung")
	}
	if runErr != nil {
		fmt.Printf("client=%v\n", runErr)
		return 1
	}
	return 0
}

// helperGuardClient is the confined command, run in the workspace.
func helperGuardClient() int {
	unix.Umask(0o022)
	say := func(k, v string) { fmt.Printf("%s=%s\n", k, v) }
	if os.Getenv(onlyEnv) == "confine" {
		mk := func(p string) string { return errName(os.WriteFile(p, nil, 0o644)) }
		say("inside", mk("allowed/x"))
		say("outside", mk("y"))
		say("outside-mkdir", errName(unix.Mkdir("z", 0o755)))
		return 0
	}
	if os.Getenv(onlyEnv) != "race" {
		for _, a := range attacks(os.Getenv(pythonEnv)) {
			clean()
			say("attack."+a.name, a.run())
		}
		clean()
		say("attack-proc-fd", procFdAttack(os.Getenv(secretEnv)))
		say("attack-proc-other", procFdAttack(os.Getenv(otherEnv)))
		for _, o := range ordinary() {
			say("ordinary."+o.name, o.run())
		}
		clean()
	}
	created, okay, refused := createRace()
	say("race-bashrc", fmt.Sprint(created))
	say("race-okay", fmt.Sprint(okay))
	say("race-refused", fmt.Sprint(refused))
	return 0
}

// clean empties the workspace (unlink and rmdir are not supervised).
func clean() {
	entries, _ := os.ReadDir(".")
	for _, e := range entries {
		os.RemoveAll(e.Name())
	}
}

// exists reports whether a name is there, without following a final symlink.
func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// workspace returns an empty, symlink-free temp directory.
func workspace(t *testing.T) string {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func python() string {
	for _, p := range []string{"/usr/bin/python3"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	p, _ := exec.LookPath("python3")
	return p
}

// guardRuns runs the guarded client and the unguarded control once each
// (shared by the tests below, which check different parts).
func guardRuns(t *testing.T, mode string) (guarded, control map[string]string) {
	t.Helper()
	needSeccomp(t)
	env := []string{pythonEnv + "=" + python(), modeEnv + "=" + mode}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	sf, err := os.Open(secret) // a descriptor of this process: another process's, to the client
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	env = append(env, fmt.Sprintf("%s=%d:%d", otherEnv, os.Getpid(), sf.Fd()))
	ws := workspace(t)
	out, ps := spawn(t, "guardsup", append(env, dirEnv+"="+ws, secretEnv+"="+secret)...)
	if !ps.Success() {
		t.Fatalf("guarded run: %v\n%s", ps, out)
	}
	guarded = results(out)
	ws2 := workspace(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append(env, helperEnv+"=guardclient", fmt.Sprintf("%s=%d:%d", secretEnv, os.Getpid(), sf.Fd()))...)
	cmd.Dir = ws2
	cout, err := cmd.Output()
	if err != nil {
		t.Fatalf("control run: %v\n%s", err, cout)
	}
	return guarded, results(string(cout))
}

func TestGuardCreate(t *testing.T) {
	if python() == "" {
		t.Log("no python3: the exchange, O_TMPFILE and dirfd attacks are not tried")
	}
	for _, mode := range []string{"thread", "all"} {
		t.Run(mode, func(t *testing.T) { testGuardCreate(t, mode) })
	}
}

// testGuardCreate runs the attacks with the filter on the command's
// thread only (as the init installs it) or on every thread (the
// supervisor then supervises its own calls too).
func testGuardCreate(t *testing.T, mode string) {
	guarded, control := guardRuns(t, mode)
	if guarded["supervise-return"] != "true" {
		t.Errorf("supervise returned %q, want context.Canceled", guarded["supervise-return"])
	}
	n := 0
	for _, k := range sortedKeys(control) {
		if !strings.HasPrefix(k, "attack.") {
			continue
		}
		n++
		g, c := guarded[k], control[k]
		// Control: the attack went through and planted the name.
		if !strings.HasPrefix(c, "ok") || !strings.HasSuffix(c, ":1") {
			t.Errorf("%s unguarded: %q, want it to succeed (else the check cannot fail)", k, c)
		}
		if strings.HasSuffix(g, ":1") || g == "" {
			t.Errorf("%s guarded: %q: the protected name was created", k, g)
		}
		t.Logf("%s: guarded %s | unguarded %s", k, g, c)
	}
	if n < 20 {
		t.Errorf("only %d attacks ran", n)
	}
	// The ancestor moved away is allowed, and the new one is protected.
	if g := guarded["attack.moved-away-recreated"]; g != "failed,.gitx:1,.git:1,.git/hooks:0" {
		t.Errorf("moved-away-recreated guarded: %q", g)
	}
	if g, c := guarded["attack-proc-fd"], control["attack-proc-fd"]; g == "leaked" || g == "no-secret" || c != "leaked" {
		t.Errorf("reopening the init's descriptor through /proc: guarded %q, unguarded %q (want not leaked, leaked)", g, c)
	} else {
		t.Logf("reopening the init's descriptor through /proc: guarded %s, unguarded %s", g, c)
	}
	if g, c := guarded["attack-proc-other"], control["attack-proc-other"]; g != "EACCES" || c != "leaked" {
		t.Errorf("reopening another process's descriptor through /proc: guarded %q, unguarded %q (want EACCES, leaked)", g, c)
	}
	if g := guarded["attack.hooks"]; g != "failed,.git:1,.git/hooks:0" {
		t.Errorf("hooks guarded: %q, want .git made and hooks refused", g)
	}
}

// TestGuardCreateOrdinary checks that everything beside the protected
// names works exactly as without the guard: results, errors and modes.
func TestGuardCreateOrdinary(t *testing.T) {
	guarded, control := guardRuns(t, "thread")
	want := map[string]string{
		"touch": "ok 644", "mkdir-p": "ok 755 755", "umask077": "ok 600 ok 700 ok 600",
		"mode-bits": "ok 1755", "ln-s": "aok", "mv": "okfalse true",
		"ln": "ok nlink=2", "excl": "EEXIST", "no-trunc": "ok size=5", "trunc": "ok size=0",
		"write-through-fd": "fd>2=true data", "cloexec": "true false", "dirfd": "ok ok true true",
		"symlinked-parent": "oktrue true", "dangling-symlink-followed": "oktrue",
		"excl-on-symlink": "EEXIST", "nofollow-on-symlink": "ELOOP", "symlink-loop": "ELOOP",
		"fifo": "ok 10000", "mkdir-exists": "EEXIST", "mkdir-trailing-slash": "oktrue",
		"open-missing-dir": "ENOENT", "open-dir-slash": "EISDIR", "open-not-dir": "ENOTDIR",
		"open-dot": "EISDIR", "rename-missing": "ENOENT", "rename-noreplace": "EEXIST",
		"rename-exchange": "ok 21", "symlink-exists": "EEXIST", "link-exists": "EEXIST",
		"link-bad-flags": "EINVAL", "bad-dirfd": "EBADF", "file-as-dirfd": "ENOTDIR",
		"bad-pointer": "EFAULT EFAULT", "dev-stdout": "hi", "dev-fd": "hi", "proc-self-fd": "hi",
		"proc-self-cwd": "hi", "proc-thread-self-fd": "hi", "tmpfile-link": "ok ok 600 600",
	}
	for k, v := range want {
		if got := guarded["ordinary."+k]; got != v {
			t.Errorf("guarded %s: %q, want %q", k, got, v)
		}
	}
	for _, k := range sortedKeys(control) {
		if strings.HasPrefix(k, "ordinary.") && guarded[k] != control[k] {
			t.Errorf("%s: guarded %q, unguarded %q", k, guarded[k], control[k])
		}
	}
	if got := guarded["ordinary.mknod-device"]; got != "EPERM" {
		t.Errorf("mknod of a device: %q, want EPERM", got)
	}
}

// TestGuardCreateRace flips the path between okay.sh and .bashrc while
// another thread creates: the guard must never create .bashrc, the racy
// check-then-continue supervisor must (so the test can fail), and so must
// the unguarded control.
func TestGuardCreateRace(t *testing.T) {
	needSeccomp(t)
	run := func(racy string) map[string]string {
		ws := workspace(t)
		out, ps := spawn(t, "guardsup", dirEnv+"="+ws, onlyEnv+"=race", racyEnv+"="+racy)
		if !ps.Success() {
			t.Fatalf("guarded run: %v\n%s", ps, out)
		}
		return results(out)
	}
	safe := run("0")
	if safe["race-bashrc"] != "false" {
		t.Errorf("the guard let the race create .bashrc: %v", safe)
	}
	if safe["race-okay"] == "0" || safe["race-refused"] == "0" {
		t.Errorf("the race never flipped the outcome (%v): it tested nothing", safe)
	}
	racy := run("1")
	if racy["race-bashrc"] != "true" {
		t.Errorf("the check-then-continue supervisor never lost the race (%v): the test could not fail", racy)
	}
	t.Logf("guard: %s created okay.sh, %s refused; racy variant created .bashrc: %s", safe["race-okay"], safe["race-refused"], racy["race-bashrc"])
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// createRace opens with O_CREAT from this goroutine while another flips
// the path between okay.sh and .bashrc (same length), until .bashrc exists
// or enough rounds showed both outcomes.
func createRace() (created bool, okay, refused int) {
	a, b := []byte("okay.sh\x00"), []byte(".bashrc\x00")
	buf := make([]byte, len(a))
	copy(buf, a)
	var stop atomic.Bool
	flipped := make(chan struct{})
	go func() {
		defer close(flipped)
		for i := 0; !stop.Load(); i++ {
			if i%2 == 0 {
				copy(buf, b)
			} else {
				copy(buf, a)
			}
		}
	}()
	for i := 0; i < 20*raceRounds && !created && (i < raceRounds || mixed(okay, refused) < 2); i++ {
		fd, _, e := unix.Syscall6(unix.SYS_OPENAT, atFdcwd, uintptr(unsafe.Pointer(&buf[0])),
			unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644, 0, 0)
		switch e {
		case 0:
			okay++
			unix.Close(int(fd))
		case unix.EROFS:
			refused++
		}
		created = exists(".bashrc")
	}
	stop.Store(true)
	<-flipped
	return created, okay, refused
}

// atFdcwd is AT_FDCWD as a raw syscall argument.
var atFdcwd = func() uintptr { fd := unix.AT_FDCWD; return uintptr(fd) }()

// landlockThread restricts the calling thread (only) so that it may make
// files, directories and symlinks only beneath dir.
func landlockThread(dir string) error {
	const mk = ll.AccessFSMakeReg | ll.AccessFSMakeDir | ll.AccessFSMakeSym | ll.AccessFSMakeFifo
	fd, err := ll.LandlockCreateRuleset(&ll.RulesetAttr{HandledAccessFS: mk}, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	d, err := unix.Open(dir, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(d)
	if err := ll.LandlockAddPathBeneathRule(fd, &ll.PathBeneathAttr{AllowedAccess: mk, ParentFd: d}, 0); err != nil {
		return err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	return ll.LandlockRestrictSelf(fd, 0)
}

// TestGuardCreateConfine checks Rules.Confine: creations the supervisor
// performs are held to the Landlock rules it applies, as they would be for
// the command; without it (the control) they are not.
func TestGuardCreateConfine(t *testing.T) {
	needSeccomp(t)
	_, err := ll.LandlockGetABIVersion()
	testenv.Need(t, "landlock", err)
	run := func(confine string) map[string]string {
		ws := workspace(t)
		if err := os.Mkdir(ws+"/allowed", 0o755); err != nil {
			t.Fatal(err)
		}
		out, ps := spawn(t, "guardsup", dirEnv+"="+ws, onlyEnv+"=confine", confineEnv+"="+confine)
		if !ps.Success() {
			t.Fatalf("guarded run: %v\n%s", ps, out)
		}
		return results(out)
	}
	got, control := run("1"), run("0")
	for k, want := range map[string]string{"inside": "ok", "outside": "EACCES", "outside-mkdir": "EACCES"} {
		if got[k] != want {
			t.Errorf("with Confine, %s: %q, want %q", k, got[k], want)
		}
		if control[k] != "ok" {
			t.Errorf("without Confine, %s: %q, want ok (else the check cannot fail)", k, control[k])
		}
	}
}

// TestSuperviseNeedsEncloses: Protected alone would let a ".git" file or
// symlink redirect git around .git/hooks, so Supervise refuses it.
func TestSuperviseNeedsEncloses(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = Supervise(context.Background(), f, Rules{Protected: func(string) bool { return true }})
	if !errors.Is(err, policy.ErrPolicy) {
		t.Errorf("Supervise with Protected and no Encloses: %v, want ErrPolicy", err)
	}
}
