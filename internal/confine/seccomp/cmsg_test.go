package seccomp

import (
	"encoding/binary"
	"testing"
)

func cmsg(level, typ uint32, data ...uint32) []byte {
	l := cmsgHeader + 4*len(data)
	b := make([]byte, (l+7)&^7)
	binary.NativeEndian.PutUint64(b, uint64(l))
	binary.NativeEndian.PutUint32(b[8:], level)
	binary.NativeEndian.PutUint32(b[12:], typ)
	for i, d := range data {
		binary.NativeEndian.PutUint32(b[cmsgHeader+4*i:], d)
	}
	return b
}

func TestRightsSlots(t *testing.T) {
	two := append(cmsg(solSocket, scmRights, 3, 4, 5), cmsg(solSocket, 2 /* SCM_CREDENTIALS */, 1, 2, 3)...)
	bad := cmsg(solSocket, scmRights, 3)
	binary.NativeEndian.PutUint64(bad, 1000)
	short := cmsg(solSocket, scmRights, 3)
	binary.NativeEndian.PutUint64(short, 8)
	for _, c := range []struct {
		name  string
		in    []byte
		slots []int
		ok    bool
	}{
		{"empty", nil, nil, true},
		{"one fd", cmsg(solSocket, scmRights, 7), []int{16}, true},
		{"three fds then creds", two, []int{16, 20, 24}, true},
		{"other level", cmsg(41, scmRights, 7), nil, true},
		{"length past the end", bad, nil, false},
		{"length below the header", short, nil, false},
		{"trailing bytes shorter than a header", append(cmsg(solSocket, scmRights, 7), 1, 2, 3), []int{16}, true},
	} {
		slots, ok := rightsSlots(c.in)
		if ok != c.ok || len(slots) != len(c.slots) {
			t.Errorf("%s: %v %v, want %v %v", c.name, slots, ok, c.slots, c.ok)
			continue
		}
		for i := range slots {
			if slots[i] != c.slots[i] {
				t.Errorf("%s: %v, want %v", c.name, slots, c.slots)
			}
		}
	}
}

// FuzzRightsSlots: whatever the command puts in its control data, every
// slot lies inside it, inside an SCM_RIGHTS message, and the walk ends.
func FuzzRightsSlots(f *testing.F) {
	f.Add(cmsg(solSocket, scmRights, 3, 4))
	f.Add(append(cmsg(solSocket, 2, 1, 2, 3), cmsg(solSocket, scmRights, 9)...))
	f.Fuzz(func(t *testing.T, c []byte) {
		slots, ok := rightsSlots(c)
		if !ok && slots != nil {
			t.Fatal("slots with a refusal")
		}
		for _, p := range slots {
			if p < cmsgHeader || p+4 > len(c) {
				t.Fatalf("slot %d outside %d bytes", p, len(c))
			}
		}
	})
}
