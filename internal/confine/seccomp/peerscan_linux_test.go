package seccomp

import (
	"encoding/binary"
	"net"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func diagMsg(ino uint32, attrs ...[]byte) []byte {
	b := make([]byte, 16)
	b[0] = unix.AF_UNIX
	binary.NativeEndian.PutUint32(b[4:], ino)
	for _, a := range attrs {
		b = append(b, a...)
	}
	return b
}

func rtattr(typ uint16, data ...uint32) []byte {
	b := make([]byte, 4+4*len(data))
	binary.NativeEndian.PutUint16(b, uint16(len(b)))
	binary.NativeEndian.PutUint16(b[2:], typ)
	for i, d := range data {
		binary.NativeEndian.PutUint32(b[4+4*i:], d)
	}
	return b
}

func TestParseUnixDiag(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []byte
		want unixListener
		ok   bool
	}{
		{"vfs", diagMsg(7, rtattr(unixDiagVFS, 99, 8<<20|1)), unixListener{ino: 7, vfsIno: 99, vfsDev: 8<<20 | 1}, true},
		{"vfs after another attribute", diagMsg(7, rtattr(2, 1, 2), rtattr(unixDiagVFS, 99, 3)), unixListener{ino: 7, vfsIno: 99, vfsDev: 3}, true},
		{"no vfs: not bound to a file", diagMsg(7, rtattr(2, 1)), unixListener{}, false},
		{"short", []byte{1, 2, 3}, unixListener{}, false},
		{"attribute past the end", append(diagMsg(7), 200, 0, 1, 0), unixListener{}, false},
	} {
		got, ok := parseUnixDiag(c.in)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: %+v %v, want %+v %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseUnixDiag(f *testing.F) {
	f.Add(diagMsg(7, rtattr(unixDiagVFS, 99, 3)))
	f.Add(diagMsg(7, rtattr(2, 1, 2), rtattr(unixDiagVFS, 99, 3)))
	f.Fuzz(func(t *testing.T, b []byte) {
		if l, ok := parseUnixDiag(b); !ok && l != (unixListener{}) {
			t.Fatal("a listener with a refusal")
		}
	})
}

// TestDescendantHolds: a listener this process holds is found by its
// file; a file no descendant listens on is not.
func TestDescendantHolds(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("unix", dir+"/mine.sock")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	holds := DescendantHolds()
	var st unix.Stat_t
	if err := unix.Stat(dir+"/mine.sock", &st); err != nil {
		t.Fatal(err)
	}
	if !holds(st.Dev, st.Ino) {
		t.Error("own listener not found")
	}
	if err := os.WriteFile(dir+"/plain", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := unix.Stat(dir+"/plain", &st); err != nil {
		t.Fatal(err)
	}
	if holds(st.Dev, st.Ino) {
		t.Error("a plain file is held as a listener")
	}
}
