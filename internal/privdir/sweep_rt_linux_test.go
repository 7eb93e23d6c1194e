package privdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"golang.org/x/sys/unix"
)

// rt16 (issue 16 red team): Sweep reads the parent with getdents and trusts
// the entry's type and name. Planted entries that carry our prefix must
// neither be removed nor followed, nor hang the sweep:
//   - a final name and an old staging name that are symlinks to a dead,
//     unlocked directory of ours (following them would remove the target);
//   - a FIFO and a regular file with a final name (opening a FIFO for
//     reading would block the sweep);
//   - a directory of ours whose lock a live process holds;
//   - (root) a free directory of another user, and (as 65534) a free
//     directory of root's in a sticky shared parent.
//
// Control: in the same parent, a dead directory of ours with a final name
// and an old staging directory are removed — the sweep works there, and
// the victim would go if a link were followed. Runs as root and as 65534.
func TestRTSweepPlantedEntries(t *testing.T) {
	parent := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	must(t, os.Mkdir(victim, 0o700))
	must(t, os.WriteFile(filepath.Join(victim, "precious"), []byte("x"), 0o600))

	old := time.Now().Add(-2 * stagingAge)
	plant := map[string]func(string) error{
		prefix + "Llink": func(p string) error { return os.Symlink(victim, p) },
		prefix + "Lfifo": func(p string) error { return unix.Mkfifo(p, 0o600) },
		prefix + "Lfile": func(p string) error { return os.WriteFile(p, []byte("x"), 0o600) },
		staging(prefix) + "link": func(p string) error {
			if err := os.Symlink(victim, p); err != nil {
				return err
			}
			ts := []unix.Timespec{unix.NsecToTimespec(old.UnixNano()), unix.NsecToTimespec(old.UnixNano())}
			return unix.UtimesNanoAt(unix.AT_FDCWD, p, ts, unix.AT_SYMLINK_NOFOLLOW)
		},
	}
	for name, mk := range plant {
		must(t, mk(filepath.Join(parent, name)))
	}
	var foreign string
	if os.Geteuid() == 0 {
		foreign = filepath.Join(parent, prefix+"Lnobody")
		must(t, os.Mkdir(foreign, 0o700))
		must(t, os.Chown(foreign, 65534, 65534))
	} else if shared := os.Getenv("RT16_SHARED"); shared != "" {
		// Root planted a free directory of its own in a sticky parent
		// every user may write; we sweep that parent.
		foreign = filepath.Join(shared, prefix+"Lroot")
		if got := Sweep(shared, prefix, nil); len(got) != 0 {
			t.Errorf("as %d, swept %v from a shared parent", os.Geteuid(), got)
		}
		if _, err := os.Lstat(foreign); err != nil {
			t.Errorf("root's directory gone: %v", err)
		}
	}

	// A live holder's directory (TestHelperHold makes one and waits).
	holder := exec.Command(os.Args[0], "-test.run=^TestHelperHold$")
	holder.Env = append(os.Environ(), "PRIVDIR_HELPER="+parent)
	out, err := holder.StdoutPipe()
	must(t, err)
	must(t, holder.Start())
	t.Cleanup(func() { _ = holder.Process.Signal(syscall.SIGKILL); _ = holder.Wait() })
	buf := make([]byte, 4096)
	n, _ := out.Read(buf)
	held := strings.TrimSpace(string(buf[:n]))
	if !strings.HasPrefix(filepath.Base(held), prefix+"L") {
		t.Fatalf("helper said %q", held)
	}

	// Controls: a dead final directory and an old staging directory.
	dead := filepath.Join(parent, prefix+"Ldead")
	must(t, os.Mkdir(dead, 0o700))
	must(t, os.WriteFile(filepath.Join(dead, "f"), []byte("x"), 0o600))
	stale := filepath.Join(parent, staging(prefix)+"stale")
	must(t, os.Mkdir(stale, 0o700))
	must(t, os.Chtimes(stale, old, old))

	done := make(chan []string, 1)
	go func() { done <- Sweep(parent, prefix, nil) }()
	var got []string
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Sweep hangs (a planted FIFO opened?)")
	}
	slices.Sort(got)
	want := []string{stale, dead}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("as uid %d, Sweep removed %v, want exactly %v", os.Geteuid(), got, want)
	}
	for _, p := range []string{filepath.Join(victim, "precious"), held, foreign} {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s gone: %v", p, err)
		}
	}
	for name := range plant {
		if _, err := os.Lstat(filepath.Join(parent, name)); err != nil {
			t.Errorf("planted %s gone: %v", name, err)
		}
	}
	for _, p := range []string{dead, stale} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("control %s survives: %v", p, err)
		}
	}
}

// TestRTSweepPlantedEntriesNonRoot reruns the attack as uid 65534, with a
// sticky shared parent holding a free directory of root's.
func TestRTSweepPlantedEntriesNonRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("already not root") // the rerun itself
	}
	shared, err := os.MkdirTemp("", "privdir-rt16-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(shared) })
	must(t, os.Chmod(shared, 0o1777))
	rootDir := filepath.Join(shared, prefix+"Lroot")
	must(t, os.Mkdir(rootDir, 0o755))
	inittest.Rerun(t, inittest.RerunOptions{Pattern: "^TestRTSweepPlantedEntries$", UID: 65534,
		Env: []string{"PATH=/usr/bin:/bin", "RT16_SHARED=" + shared}, NoSkip: true})
	if _, err := os.Lstat(rootDir); err != nil {
		t.Fatalf("root's directory swept by 65534: %v", err)
	}
}
