package privdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/testenv"
)

const prefix = "ringfence-tmp-"

// TestSweepLeavesLiveOnes: a directory whose owner lives is never swept.
func TestSweepLeavesLiveOnes(t *testing.T) {
	parent := t.TempDir()
	d, err := Make(parent, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(d.Path), prefix) {
		t.Fatalf("made %s", d.Path)
	}
	if got := Sweep(parent, prefix, nil); len(got) != 0 {
		t.Fatalf("swept a live directory: %v", got)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Path); !os.IsNotExist(err) {
		t.Fatalf("Close left %s", d.Path)
	}
}

// TestSweepRemovesDeadOwners: a process that made its directory and was
// SIGKILLed leaves it; the next sweep removes it (and only it: a foreign
// name, a link and another user's directory stay). Control: before the
// owner dies, the sweep leaves it.
func TestSweepRemovesDeadOwners(t *testing.T) {
	parent := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHold$")
	cmd.Env = append(os.Environ(), "PRIVDIR_HELPER="+parent)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := out.Read(buf)
	held := strings.TrimSpace(string(buf[:n]))
	if !strings.HasPrefix(filepath.Base(held), prefix) {
		t.Fatalf("helper said %q", held)
	}
	must(t, os.WriteFile(filepath.Join(held, "scratch"), []byte("x"), 0o600))
	if got := Sweep(parent, prefix, nil); len(got) != 0 {
		t.Fatalf("control: swept while the owner lives: %v", got)
	}
	must(t, os.Symlink(held, filepath.Join(parent, prefix+"Llink")))
	must(t, os.Mkdir(filepath.Join(parent, "unrelated"), 0o700))
	must(t, os.Mkdir(filepath.Join(parent, prefix+"123"), 0o700)) // an unlocking ringfence's
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if _, err := os.Stat(held); err != nil {
		t.Fatalf("the killed owner's directory should still be there before a sweep: %v", err)
	}
	got := Sweep(parent, prefix, nil)
	if len(got) != 1 || got[0] != held {
		t.Fatalf("sweep removed %v, want [%s]", got, held)
	}
	if _, err := os.Lstat(held); !os.IsNotExist(err) {
		t.Fatalf("%s survives the sweep", held)
	}
	for _, keep := range []string{prefix + "Llink", "unrelated", prefix + "123"} {
		if _, err := os.Lstat(filepath.Join(parent, keep)); err != nil {
			t.Errorf("sweep removed %s: %v", keep, err)
		}
	}
}

// TestSweepSkipsOtherUsers: a directory of another user is left alone even
// with its lock free (root test: chown to nobody).
func TestSweepSkipsOtherUsers(t *testing.T) {
	testenv.NeedRoot(t)
	parent := t.TempDir()
	p := filepath.Join(parent, prefix+"Lnobody")
	must(t, os.Mkdir(p, 0o700))
	must(t, os.Chown(p, 65534, 65534))
	if got := Sweep(parent, prefix, nil); len(got) != 0 {
		t.Fatalf("swept another user's directory: %v", got)
	}
}

// TestHelperHold is the owner process: it makes a directory, says where,
// and waits to be killed.
func TestHelperHold(t *testing.T) {
	parent := os.Getenv("PRIVDIR_HELPER")
	if parent == "" {
		t.Skip("helper")
	}
	d, err := Make(parent, prefix)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(d.Path + "\n")
	time.Sleep(time.Minute)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
