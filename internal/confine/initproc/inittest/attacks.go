//go:build linux

package inittest

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/policy"
)

// Attack is one escape attempt: a /bin/sh script that exits 0 when the
// attack worked. Each is run once unconfined, where it must work (so the
// check can fail), and once confined, where it must not.
type Attack struct {
	Name   string
	Script string
	// Worked, if set, must also hold for the attack to count as working
	// (an effect the exit code cannot show, e.g. a datagram received).
	Worked func(e *Env) bool
	// HostState marks attacks that would change the host: the unconfined
	// run happens in private mount and uts namespaces.
	HostState bool
	// PTY gives the script a pseudo-terminal as stdin.
	PTY bool
	// Root marks attacks that only work unconfined as root: skipped (not
	// passed) in a non-root run, which cannot show they could fail.
	Root bool
	// Nets are the network modes to try it under (default: deny only).
	Nets []policy.NetworkMode
}

const py = "/usr/bin/python3 -c "

// Attacks is the suite. It is not exhaustive; every entry is a real attack.
var Attacks = []Attack{
	{Name: "write-outside", Script: `echo pwn > "$OUT/new"`},
	{Name: "write-dotdot", Script: `echo pwn > "$ROOT/../out/new"`},
	{Name: "write-via-symlink", Script: `ln -s "$OUT/victim" "$ROOT/work/l" && echo pwn >> "$ROOT/work/l"`},
	{Name: "write-via-hardlink", Script: `ln "$OUT/victim" "$ROOT/work/h" && echo pwn >> "$ROOT/work/h"`},
	{Name: "rename-out-of-outside", Script: `mv "$OUT/victim" "$ROOT/work/stolen" && test ! -e "$OUT/victim"`},
	{Name: "rename-into-outside", Script: `mv "$ROOT/work/file" "$OUT/moved" && test -e "$OUT/moved"`},
	{Name: "protected-new-hook", Script: `echo pwn > "$ROOT/.git/hooks/pre-commit"`},
	{Name: "protected-config", Script: `echo pwn >> "$ROOT/.git/config"`},
	{Name: "protected-remove-hooks", Script: `rm -rf "$ROOT/.git/hooks"; test ! -e "$ROOT/.git/hooks"`},
	{Name: "protected-replace-git", Script: `mv "$ROOT/.git" "$ROOT/.git2" && mkdir -p "$ROOT/.git/hooks" && echo pwn > "$ROOT/.git/hooks/post-checkout"`},
	{Name: "protected-replace-hooks", Script: `mv "$ROOT/.git/hooks" "$ROOT/.git/h2" && mkdir "$ROOT/.git/hooks"`},
	{Name: "protected-missing-dir", Script: `mkdir "$ROOT/.claude" && echo x > "$ROOT/.claude/settings.json"`},
	{Name: "protected-missing-file", Script: `echo x > "$ROOT/.bashrc"`},
	{Name: "protected-missing-symlink", Script: `ln -s "$OUT" "$ROOT/.claude" && test -L "$ROOT/.claude"`},
	{Name: "protected-missing-rename", Script: `mkdir "$ROOT/work/c" && mv "$ROOT/work/c" "$ROOT/.claude" && test -d "$ROOT/.claude"`},
	{Name: "protected-missing-hardlink", Script: `ln "$ROOT/work/file" "$ROOT/.bashrc"`},
	{Name: "protected-missing-via-dangling-link", Script: `ln -s "$ROOT/.bashrc" "$ROOT/work/l2" && echo x > "$ROOT/work/l2" && test -f "$ROOT/.bashrc"`},
	{Name: "read-denied", Script: `grep -q s3cret "$DENY/secret"`},
	{Name: "read-denied-file", Script: `grep -q s3cret "$DENYFILE"`},
	{Name: "list-denied", Script: `ls "$DENY" | grep -q secret`},
	{Name: "read-denied-proc-root", Script: `grep -q s3cret "/proc/self/root$DENY/secret"`},
	{Name: "read-denied-proc-cwd", Script: `cd "$DENY" && grep -q s3cret /proc/self/cwd/secret`},
	{Name: "read-denied-symlink", Script: `ln -s "$DENY/secret" "$ROOT/work/ls" && grep -q s3cret "$ROOT/work/ls"`},
	{Name: "read-denied-link-target", Script: `grep -q s3cret "$LINKED/secret"`},
	{Name: "read-denied-through-link", Script: `grep -q s3cret "$DENYLINK/secret"`},
	{Name: "read-denied-hardlink", Script: `ln "$DENY/secret" "$ROOT/work/hs" && grep -q s3cret "$ROOT/work/hs"`},
	{Name: "tcp-to-host", Nets: []policy.NetworkMode{policy.NetDeny, policy.NetLoopback},
		Script: py + `"import socket,os; socket.create_connection(('127.0.0.1', int(os.environ['TCP'])), 2)"`},
	{Name: "udp-to-host", Nets: []policy.NetworkMode{policy.NetDeny, policy.NetLoopback},
		Script: py + `"import socket,os; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); [s.sendto(b'token', ('127.0.0.1', int(os.environ['UDP']))) for _ in range(3)]"`,
		Worked: (*Env).UDPReceived},
	{Name: "unix-path-to-host", Nets: []policy.NetworkMode{policy.NetDeny, policy.NetAllowAll},
		Script: py + `"import socket,os; s=socket.socket(socket.AF_UNIX); s.connect(os.environ['USOCK'])"`},
	{Name: "unix-abstract-to-host", Nets: []policy.NetworkMode{policy.NetDeny, policy.NetLoopback, policy.NetAllowAll},
		Script: py + `"import socket,os; s=socket.socket(socket.AF_UNIX); s.connect('\0'+os.environ['ASOCK'])"`},
	{Name: "signal-host", Nets: []policy.NetworkMode{policy.NetDeny, policy.NetAllowAll}, Script: `kill -TERM "$SLEEPER"`},
	{Name: "ptrace-host", Script: py + `"import ctypes,os,sys; l=ctypes.CDLL(None, use_errno=True); sys.exit(0 if l.ptrace(16, int(os.environ['SLEEPER']), 0, 0) == 0 else 1)"`},
	{Name: "read-host-environ", Script: `grep -q RF_SLEEPER "/proc/$SLEEPER/environ"`},
	{Name: "mount", Root: true, HostState: true, Script: `mkdir -p "$ROOT/work/m" && mount -t tmpfs none "$ROOT/work/m"`},
	{Name: "sethostname", Root: true, HostState: true, Script: `hostname pwned-by-test`},
	{Name: "sysctl-write", Root: true, Script: `echo 1 > /proc/sys/vm/drop_caches`},
	{Name: "mknod", Root: true, Script: `mknod "$ROOT/work/null2" c 1 3`},
	{Name: "capabilities", Root: true, Script: `grep CapEff /proc/self/status | grep -vq 0000000000000000`},
	{Name: "setuid-file", Root: true, Script: `cp /usr/bin/python3.11 "$ROOT/work/spy" && chmod u+s "$ROOT/work/spy" && "$ROOT/work/spy" -c "import sys; sys.exit(0 if [l for l in open('/proc/self/status') if l.startswith('CapEff') and '0000000000000000' not in l] else 1)"`},
	{Name: "nested-userns", Script: `unshare -U true`},
	{Name: "file-handle", Root: true, Script: py + `"import ctypes,os,sys
l=ctypes.CDLL(None, use_errno=True)
h=ctypes.create_string_buffer(136); ctypes.memmove(h, (128).to_bytes(4,'little'), 4)
m=ctypes.c_int()
if l.name_to_handle_at(-100, os.environ['OUT'].encode()+b'/victim', h, ctypes.byref(m), 0) != 0: sys.exit(1)
sys.exit(0 if l.open_by_handle_at(os.open('/', os.O_RDONLY), h, 0) >= 0 else 1)"`},
	{Name: "tiocsti", PTY: true, Script: py + `"import os,fcntl,termios; os.setsid(); fcntl.ioctl(0, termios.TIOCSCTTY, 0); fcntl.ioctl(0, termios.TIOCSTI, b'x')"`},
	{Name: "leaked-fd", Script: `ls -l /proc/self/fd/ | grep -q rf-canary`},
	{Name: "leaked-env", Script: `test -n "$RF_CANARY"`},
	{Name: "outlive", Script: `setsid /bin/sleep "$MARK" </dev/null >/dev/null 2>&1 & sleep 0.3`,
		Worked: func(e *Env) bool {
			pids := SurvivorPids(e.Mark)
			KillPids(pids)
			return len(pids) > 0
		}},
}

// Confiner runs script confined under p, with stdin (nil: none).
type Confiner func(t *testing.T, e *Env, p *policy.Policy, script string, stdin *os.File) Result

// RunSuite runs every attack unconfined and confined. gaps names the
// attacks (by name, or name/network) this backend is known, and reports,
// not to stop, with why: they
// must still work unconfined, and are logged, not failed, when they work
// confined.
func RunSuite(t *testing.T, confine Confiner, gaps map[string]string) {
	// Canaries the command must not see: an environment variable and a
	// descriptor without close-on-exec, both in this (the parent) process.
	// os.Setenv rather than t.Setenv: the attacks run in parallel.
	if err := os.Setenv("RF_CANARY", "1"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Unsetenv("RF_CANARY") })
	fd, err := unix.Open(t.TempDir()+"/rf-canary", unix.O_CREAT|unix.O_RDWR, 0o600) // no O_CLOEXEC
	must(t, err)
	t.Cleanup(func() { unix.Close(fd) })
	for _, a := range Attacks {
		nets := a.Nets
		if len(nets) == 0 {
			nets = []policy.NetworkMode{policy.NetDeny}
		}
		for _, n := range nets {
			gap := gaps[a.Name]
			if g, ok := gaps[a.Name+"/"+netName(n)]; ok {
				gap = g
			}
			t.Run(a.Name+"/"+netName(n), func(t *testing.T) {
				t.Parallel()
				runAttack(t, a, n, confine, gap)
			})
		}
	}
}

func netName(n policy.NetworkMode) string {
	return map[policy.NetworkMode]string{policy.NetDeny: "deny", policy.NetLoopback: "loopback", policy.NetAllowAll: "allow-all"}[n]
}

func runAttack(t *testing.T, a Attack, n policy.NetworkMode, confine Confiner, gap string) {
	if a.Root && os.Geteuid() != 0 {
		t.Skip("works unconfined only as root; covered by the root run")
	}
	e := NewEnv(t)
	if !a.worked(e, unconfined(t, e, a)) {
		t.Fatalf("the attack does not work even unconfined: the check could not fail")
	}
	e = NewEnv(t)
	res := confine(t, e, e.Policy(n), a.Script, a.stdin(t))
	if !res.Status.Started {
		t.Fatalf("the command did not start (status %+v, stderr %q): a refusal must come from confinement, not set-up", res.Status, res.Stderr)
	}
	worked := a.worked(e, res.Code)
	switch {
	case worked && gap != "":
		t.Logf("known gap, reported by the backend: %s", gap)
	case worked:
		t.Fatalf("attack worked confined (stdout %q, stderr %q)", res.Stdout, res.Stderr)
	case gap != "":
		t.Fatalf("listed as a gap but was stopped (exit %d, stderr %q): update the gap list and the enforcement report", res.Code, res.Stderr)
	default:
		t.Logf("stopped: %s", lastLine(res.Stderr))
	}
}

func (a Attack) worked(e *Env, code int) bool {
	return code == 0 && (a.Worked == nil || a.Worked(e))
}

func (a Attack) stdin(t *testing.T) *os.File {
	if !a.PTY {
		return nil
	}
	return openPTY(t)
}

// unconfined runs the attack with nothing but the host's own checks, with
// the test process's environment and descriptors (canaries included).
func unconfined(t *testing.T, e *Env, a Attack) int {
	t.Helper()
	argv := []string{"/bin/sh", "-c", a.Script}
	if a.HostState {
		argv = append([]string{"unshare", "--mount", "--uts", "--propagation", "private"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), e.Vars()...)
	if s := a.stdin(t); s != nil {
		cmd.Stdin = s
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("unconfined: %v: %s", err, out)
	}
	return cmd.ProcessState.ExitCode()
}

// openPTY opens a pseudo-terminal pair and returns the follower end.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	must(t, err)
	t.Cleanup(func() { ptm.Close() })
	fd := int(ptm.Fd())
	must(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	must(t, err)
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	must(t, err)
	t.Cleanup(func() { pts.Close() })
	return pts
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
