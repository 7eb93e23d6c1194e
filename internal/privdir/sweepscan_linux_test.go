package privdir

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestSweepBusyParent: in a parent with many unrelated entries (files,
// directories, links, some with names close to the prefix), read with a
// getdents buffer far smaller than the directory so the scan takes many
// calls, the sweep still finds the dead owner's directory wherever it
// lies, and touches nothing else. Control: with the owner alive it
// removes nothing.
func TestSweepBusyParent(t *testing.T) {
	defer func(n int) { direntBuf = n }(direntBuf)
	direntBuf = 512
	parent := t.TempDir()
	for i := range 300 {
		base := filepath.Join(parent, strings.Repeat("x", i%40)+"-"+itoa(i))
		switch i % 4 {
		case 0:
			must(t, os.WriteFile(base, nil, 0o600))
		case 1:
			must(t, os.Mkdir(base, 0o700))
		case 2:
			must(t, os.Symlink("/", base))
		case 3:
			must(t, os.Mkdir(filepath.Join(parent, "ringfence-tmp"+itoa(i)), 0o700)) // no "-L"
		}
	}
	must(t, os.WriteFile(filepath.Join(parent, prefix+"Lfile"), nil, 0o600))
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
	before, _ := os.ReadDir(parent)
	if got := Sweep(parent, prefix, nil); len(got) != 0 {
		t.Fatalf("control: swept while the owner lives: %v", got)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if got := Sweep(parent, prefix, nil); len(got) != 1 || got[0] != held {
		t.Fatalf("swept %v, want [%s]", got, held)
	}
	after, _ := os.ReadDir(parent)
	if len(after) != len(before)-1 {
		t.Fatalf("%d entries before, %d after: the sweep removed more than the dead directory", len(before), len(after))
	}
}

// FuzzAppendMatches: the dirent parser takes any bytes without panicking
// and returns only names that carry one of the prefixes and no NUL.
func FuzzAppendMatches(f *testing.F) {
	rec := func(typ byte, name string) []byte {
		n := 19 + len(name) + 1
		n = (n + 7) &^ 7
		b := make([]byte, n)
		binary.LittleEndian.PutUint16(b[16:], uint16(n))
		b[18] = typ
		copy(b[19:], name)
		return b
	}
	f.Add(append(rec(4, "ringfence-tmp-Lab"), rec(8, "ringfence-tmp-Lf")...))
	f.Add(rec(0, ".ringfence-tmp-new-1"))
	f.Add([]byte{})
	f.Add(make([]byte, 19))
	f.Fuzz(func(t *testing.T, b []byte) {
		ps := []string{prefix + "L", staging(prefix)}
		for _, n := range appendMatches(nil, b, ps) {
			if !strings.HasPrefix(n, ps[0]) && !strings.HasPrefix(n, ps[1]) || strings.IndexByte(n, 0) >= 0 {
				t.Fatalf("matched %q", n)
			}
		}
	})
}

func itoa(i int) string { return strconv.Itoa(i) }
