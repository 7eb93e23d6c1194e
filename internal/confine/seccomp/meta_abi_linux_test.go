package seccomp

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestMetaABIConstants checks abi_meta.go against x/sys/unix.
func TestMetaABIConstants(t *testing.T) {
	for _, p := range []struct {
		name      string
		ours, sys uint64
	}{
		{"EAFNOSUPPORT", errEAFNOSUPPORT, uint64(unix.EAFNOSUPPORT)}, {"AF_VSOCK", afVsock, unix.AF_VSOCK},
		{"S_ISUID", sISUID, unix.S_ISUID}, {"S_ISGID", sISGID, unix.S_ISGID},
		{"__O_TMPFILE", oTmpfileBit, unix.O_TMPFILE &^ unix.O_DIRECTORY},
	} {
		if p.ours != p.sys {
			t.Errorf("%s: ours %#x, x/sys/unix %#x", p.name, p.ours, p.sys)
		}
	}
}
