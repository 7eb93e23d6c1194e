//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// getfdPy tries every way a process has at another's descriptors — the
// session init's control socket is the prize: pidfd_getfd, opening
// /proc/PID/fd/N, PTRACE_ATTACH, /proc/PID/mem — and prints one line per
// success (GOT:<how>:<fd>), then END.
const getfdPy = `
import ctypes, os, socket, stat, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = int(sys.argv[1])
pidfd = libc.syscall(434, pid, 0)                      # pidfd_open
for fd in range(0, 64):
    if pidfd >= 0:
        got = libc.syscall(438, pidfd, fd, 0)          # pidfd_getfd
        if got >= 0:
            if stat.S_ISSOCK(os.fstat(got).st_mode): print("GOT:getfd-socket:%d" % fd)
            os.close(got)
    try:
        f = os.open("/proc/%d/fd/%d" % (pid, fd), os.O_RDONLY | os.O_NONBLOCK); os.close(f); print("GOT:procfd:%d" % fd)
    except OSError: pass
if libc.ptrace(16, pid, None, None) == 0: print("GOT:ptrace:0")  # PTRACE_ATTACH
try:
    open("/proc/%d/mem" % pid, "rb").close(); print("GOT:mem:0")
except OSError: pass
print("END")
`

// TestSessionControlChannelOutOfReach: a session's command goes for the
// init's descriptors (its control socket, through which a forged "start"
// would run anything the init may) by every way a process has at
// another's, and sends the init every real-time signal besides (the
// standard ones are TestSessionInitSurvivesSignalsFromInside's). The
// control: the same probe, unconfined, against a process of this user
// holding a socket, gets its descriptors.
func TestSessionControlChannelOutOfReach(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatal("python3 is needed for the probe")
	}
	dir := hostDir(t)
	probe := dir + "/getfd.py"
	if err := os.WriteFile(probe, []byte(getfdPy), 0o644); err != nil {
		t.Fatal(err)
	}
	victim := exec.Command("python3", "-c", "import socket, time; a, b = socket.socketpair(); print('ready', flush=True); time.sleep(60)")
	out, err := victim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = victim.Process.Kill(); _ = victim.Wait() })
	buf := make([]byte, 16)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	ctl, _ := exec.Command("python3", probe, strconv.Itoa(victim.Process.Pid)).Output()
	if !strings.Contains(string(ctl), "GOT:getfd-socket:") || !strings.Contains(string(ctl), "GOT:procfd:") {
		t.Fatalf("control (unconfined) did not get the victim's socket: the probe proves nothing: %s", ctl)
	}
	_, s := newSession(t)
	// The script on the command line: the host directory may be outside
	// what the session can read.
	res := runIn(t, s, Cmd{Argv: []string{"python3", "-c", getfdPy, "1"}})
	if !strings.Contains(res.Stdout, "END") {
		t.Fatalf("probe did not run: %+v", res)
	}
	if strings.Contains(res.Stdout, "GOT:") {
		t.Fatalf("a session command reached the init's descriptors or memory:\n%s", res.Stdout)
	}
	res = runIn(t, s, sh(`for sig in $(seq 32 64); do kill -$sig 1 || exit 9; done; echo sent`))
	if res.Stdout != "sent\n" {
		t.Fatalf("real-time signals were not sent (the test proves nothing): %+v", res)
	}
	time.Sleep(100 * time.Millisecond)
	if res := runIn(t, s, Cmd{Argv: []string{"true"}}); res.Kind != KindSuccess {
		t.Fatalf("the session no longer serves after real-time signals: %s %v", res.Kind, s.Err())
	}
}

func TestSessionControlChannelAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestSessionControlChannelOutOfReach$")
}
