package linux

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// rt16 (issue 16 red team): a supervisor SIGKILLed between Stage and admit
// (no Cleanup runs, nothing closes the gate on purpose) must not leave an
// init that later starts the command outside its limits: the kernel closes
// the gate's write end with the supervisor, and the init fails its set-up.
// Control: the same supervisor that admits before it is killed runs the
// command. Runs as root and as 65534.
func TestRTKilledSupervisorNeverAdmits(t *testing.T) {
	for _, admit := range []bool{true, false} {
		root := t.TempDir()
		marker := filepath.Join(root, "marker")
		sup := exec.Command(os.Args[0], "-test.run=^TestRTHelperSupervisor$")
		sup.Env = append(os.Environ(), "RT16_SUPERVISOR="+root, "RT16_ADMIT="+strconv.FormatBool(admit))
		sup.Stderr = os.Stderr
		out, err := sup.StdoutPipe()
		rtMust(t, err)
		rtMust(t, sup.Start())
		line, _ := bufio.NewReader(out).ReadString('\n')
		pid, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(line), "INIT "))
		if err != nil {
			_ = sup.Process.Kill()
			_ = sup.Wait()
			t.Fatalf("helper said %q", line)
		}
		if admit {
			// Let the admitted command write its marker first.
			rtWaitFor(t, func() bool { _, err := os.Stat(marker); return err == nil })
		}
		_ = sup.Process.Signal(syscall.SIGKILL)
		_ = sup.Wait()
		// The init, now an orphan, must end (or be a zombie) soon.
		rtWaitFor(t, func() bool {
			st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			return err != nil || strings.Contains(string(st), ") Z ")
		})
		time.Sleep(200 * time.Millisecond)
		_, err = os.Stat(marker)
		switch {
		case admit && err != nil:
			t.Fatalf("control (uid %d): admitted, the command did not run: %v", os.Geteuid(), err)
		case !admit && err == nil:
			t.Fatalf("uid %d: the command ran after its supervisor was killed before admitting it", os.Geteuid())
		}
	}
}

func TestRTKilledSupervisorNeverAdmitsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestRTKilledSupervisorNeverAdmits$")
}

// TestRTHelperSupervisor is the supervisor: it starts a gated init for a
// command that writes the marker, stages it, waits until the init blocks
// at its gate, says the init's pid, admits it or not, and waits to be
// killed.
func TestRTHelperSupervisor(t *testing.T) {
	root := os.Getenv("RT16_SUPERVISOR")
	if root == "" {
		t.Skip("helper")
	}
	c, cmd := startScript(t, root, "echo ran > "+filepath.Join(root, "marker"))
	open, err := c.Stage(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	waitAtGate(t, cmd.Process.Pid, gateFD(t, c))
	os.Stdout.WriteString("INIT " + strconv.Itoa(cmd.Process.Pid) + "\n")
	if os.Getenv("RT16_ADMIT") == "true" {
		if err := open(); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Minute)
}

func rtWaitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

func rtMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
