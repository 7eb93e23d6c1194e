package seccomp

import (
	"bytes"
	"testing"
)

// random (getrandom(2), for writeFresh's temporary names) fills every
// byte, and two draws differ: a stub that returned zeros or a fixed name
// would let a command predict, and pre-create, the file the guard writes.
func TestRandomFillsAndDiffers(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 64; i++ {
		var b [8]byte
		if !random(b[:]) {
			t.Fatal("getrandom failed")
		}
		if bytes.Equal(b[:], make([]byte, 8)) || seen[string(b[:])] {
			t.Fatalf("draw %d repeated or empty: %x", i, b)
		}
		seen[string(b[:])] = true
	}
	big := make([]byte, 1<<16) // above getrandom's 256-byte single-call guarantee
	if !random(big) || bytes.Count(big, []byte{0}) > len(big)/64 {
		t.Fatalf("a large draw was not filled")
	}
}
