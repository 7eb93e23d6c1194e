package seccomp

import "encoding/binary"

// Control-message constants (the same on amd64 and arm64).
const (
	solSocket  = 1 // SOL_SOCKET
	scmRights  = 1 // SCM_RIGHTS
	cmsgHeader = 16
)

// rightsSlots walks control data as the kernel's __scm_send does (64-bit
// struct cmsghdr: length, level, type; each message 8-byte aligned) and
// returns the offset of every descriptor slot of an SCM_RIGHTS message.
// Malformed data is not ok (EINVAL: the kernel would refuse it). Pure,
// for the fuzzer: the control data comes from the sandboxed command.
func rightsSlots(c []byte) (slots []int, ok bool) {
	for off := 0; off+cmsgHeader <= len(c); {
		l := binary.NativeEndian.Uint64(c[off:])
		if l < cmsgHeader || l > uint64(len(c)-off) {
			return nil, false
		}
		level := binary.NativeEndian.Uint32(c[off+8:])
		typ := binary.NativeEndian.Uint32(c[off+12:])
		if level == solSocket && typ == scmRights {
			for p := off + cmsgHeader; p+4 <= off+int(l); p += 4 {
				slots = append(slots, p)
			}
		}
		off += int((l + 7) &^ 7)
	}
	return slots, true
}
