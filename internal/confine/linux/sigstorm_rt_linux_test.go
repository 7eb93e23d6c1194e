package linux

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/status"
)

// rt16 (issue 16 red team): the init becomes deaf to the signals it does
// not forward on a goroutine while it sets up. A storm of those signals at
// the init from its start through the gate and the command's start must
// neither end the init, nor lose its status, nor make the command start
// with a signal ignored or blocked. The command records SigIgn and SigBlk
// of its own exec'd process. Control: the storm really reached the init
// (kill succeeded many times while it was alive). Root and 65534.
//
// Two windows. From the gate on (the init confined, waiting for
// admission), the init must survive and the command start clean. From the
// init's exec on, a signal can land before the deafening goroutine has
// run; the Go runtime then ends the init (exit 2, no status record — the
// run says "the runner stopped without reporting"). That is a same-user
// kill the sender could do with SIGKILL anyway; what must hold there is
// that nothing ran (no record) and no status claims otherwise.
func TestRTSignalStormDuringSetUp(t *testing.T) {
	storm := []syscall.Signal{syscall.SIGALRM, syscall.SIGPIPE, syscall.SIGWINCH, syscall.SIGVTALRM,
		syscall.SIGXCPU, syscall.SIGXFSZ, syscall.SIGIO, syscall.SIGTRAP, syscall.SIGSYS, syscall.SIGCONT}
	var diedEarly int
	for round := 0; round < 10; round++ {
		fromGate := round%2 == 1
		root := t.TempDir()
		out := filepath.Join(root, "sig")
		c, cmd := startScript(t, root, "exec grep -E '^Sig(Ign|Blk)' /proc/self/status > "+out)
		pid := cmd.Process.Pid
		var admit func() error
		if fromGate {
			var err error
			if admit, err = c.Stage(pid); err != nil {
				t.Fatalf("Stage: %v", err)
			}
			waitAtGate(t, pid, gateFD(t, c))
		}
		var sent atomic.Int64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, s := range storm {
					if syscall.Kill(pid, s) == nil {
						sent.Add(1)
					}
				}
			}
		}()
		time.Sleep(time.Duration(round) * time.Millisecond) // vary the moment
		setup := func() error { return c.Setup(pid) }
		if fromGate {
			setup = admit
		}
		if err := setup(); err != nil && fromGate {
			close(stop)
			<-done
			t.Fatalf("Setup: %v", err)
		}
		sum := status.Read(c.Status)
		err := cmd.Wait()
		close(stop)
		<-done
		if !fromGate && err != nil && sum.Silent {
			diedEarly++
			if _, serr := os.Stat(out); serr == nil {
				t.Fatalf("uid %d round %d: the init died silently but the command ran", os.Geteuid(), round)
			}
			continue
		}
		if err != nil || !sum.Started {
			t.Fatalf("uid %d round %d: the init under a storm of %d signals: %v, status %+v", os.Geteuid(), round, sent.Load(), err, sum)
		}
		b, rerr := os.ReadFile(out)
		if rerr != nil {
			t.Fatalf("no record: %v", rerr)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(line)
			if len(f) != 2 || strings.Trim(f[1], "0") != "" {
				t.Errorf("uid %d round %d: the command started with %q", os.Geteuid(), round, line)
			}
		}
		if sent.Load() < 10 {
			t.Fatalf("control: only %d signals reached the init", sent.Load())
		}
	}
	t.Logf("uid %d: %d of 5 inits stormed from their exec died before the set-up (silent, nothing ran)", os.Geteuid(), diedEarly)
}

func TestRTSignalStormDuringSetUpNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestRTSignalStormDuringSetUp$")
}
