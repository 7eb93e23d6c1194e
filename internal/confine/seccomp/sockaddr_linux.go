package seccomp

import (
	"bytes"
	"encoding/binary"
)

// addrKind classifies the address a supervised call names.
type addrKind int

const (
	addrOther    addrKind = iota // not AF_UNIX, or too short to say
	addrUnnamed                  // AF_UNIX with no path (autobind)
	addrAbstract                 // sun_path[0] == 0: network-namespaced, Landlock-scoped
	addrPath                     // a filesystem path: the case SuperviseUnix decides
)

// maxSockaddr is sizeof(struct sockaddr_storage): the kernel refuses longer.
const maxSockaddr = 128

// parseSockaddr reads a raw sockaddr as the kernel would for AF_UNIX: the
// path ends at the first NUL or at the given length, whichever is first.
func parseSockaddr(b []byte) (addrKind, string) {
	if len(b) < 2 || binary.LittleEndian.Uint16(b) != afUnix {
		return addrOther, ""
	}
	p := b[2:]
	switch {
	case len(p) == 0:
		return addrUnnamed, ""
	case p[0] == 0:
		return addrAbstract, ""
	}
	if i := bytes.IndexByte(p, 0); i >= 0 {
		p = p[:i]
	}
	return addrPath, string(p)
}

// unixSockaddr encodes path as a pathname AF_UNIX sockaddr.
func unixSockaddr(path string) []byte {
	b := make([]byte, 2, 2+len(path)+1)
	binary.LittleEndian.PutUint16(b, afUnix)
	b = append(b, path...)
	return append(b, 0)
}
