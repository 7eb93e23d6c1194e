package seccomp

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

func words(ws ...int64) []byte {
	b := make([]byte, 8*len(ws))
	for i, w := range ws {
		binary.NativeEndian.PutUint64(b[8*i:], uint64(w))
	}
	return b
}

func TestParseTimes(t *testing.T) {
	for _, c := range []struct {
		call  string
		in    []byte
		want  [2]unix.Timespec
		errno unix.Errno
	}{
		{"utime", words(5, 6), [2]unix.Timespec{{Sec: 5}, {Sec: 6}}, 0},
		{"utimes", words(5, 7, 6, 999999), [2]unix.Timespec{{Sec: 5, Nsec: 7000}, {Sec: 6, Nsec: 999999000}}, 0},
		{"futimesat", words(5, 1000000, 6, 0), [2]unix.Timespec{}, unix.EINVAL},
		{"utimes", words(5, -1, 6, 0), [2]unix.Timespec{}, unix.EINVAL},
		{"utimensat", words(5, unix.UTIME_NOW, 6, unix.UTIME_OMIT), [2]unix.Timespec{{Sec: 5, Nsec: unix.UTIME_NOW}, {Sec: 6, Nsec: unix.UTIME_OMIT}}, 0},
	} {
		got, errno := parseTimes(c.call, c.in)
		if errno != c.errno || (errno == 0 && got != c.want) {
			t.Errorf("%s %v: %v %v, want %v %v", c.call, c.in, got, errno, c.want, c.errno)
		}
	}
}

// TestPeerDescendant: this process and its children belong; its parent
// (the go tool or a shell) and pid 1 do not.
func TestPeerDescendant(t *testing.T) {
	inside := PeerDescendant()
	if !inside(int32(unix.Getpid())) || inside(int32(unix.Getppid())) || inside(1) || inside(0) {
		t.Fatalf("self %v, parent %v, init %v, none %v", inside(int32(unix.Getpid())), inside(int32(unix.Getppid())), inside(1), inside(0))
	}
	if !PeerInPidNamespace(5) || PeerInPidNamespace(0) {
		t.Fatal("PeerInPidNamespace")
	}
}

func TestOwnPipeOrSocket(t *testing.T) {
	for link, want := range map[string]bool{
		"pipe:[123]": true, "socket:[9]": true, "pipe:[]": false, "pipe:[12": false, "pipe:[1a]": false,
		"anon_inode:[eventfd]": false, "/var/tmp/pipe:[1]": false, "socket:[1] (deleted)": false, "": false,
	} {
		if got := ownPipeOrSocket(link); got != want {
			t.Errorf("%q: %v, want %v", link, got, want)
		}
	}
}
