package seccomp

import (
	"encoding/binary"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// DescendantHolds returns Rules.PeerHeld for a supervisor without a pid
// namespace (the landlock backend's init): whether a descendant of this
// process holds the listening unix socket bound at the file (dev, ino).
// SO_PEERCRED names the process that called listen(); a daemon that
// listens and then lets its creator exit (ssh-agent) leaves a pid that no
// longer descends from anything, though its server still does.
func DescendantHolds() func(dev, ino uint64) bool {
	self := os.Getpid()
	return func(dev, ino uint64) bool {
		held := socketsOf(descendants(self))
		if len(held) == 0 {
			return false
		}
		listeners, ok := unixListeners()
		if !ok {
			return false
		}
		for _, l := range listeners {
			// sock_diag reports the low 32 bits of the file's inode.
			if held[uint64(l.ino)] && l.vfsIno == uint32(ino) && sameDev(l.vfsDev, dev) {
				return true
			}
		}
		return false
	}
}

// descendants lists root and every process descending from it, from one
// pass over /proc.
func descendants(root int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid := parentOf(int32(pid)); ppid > 0 {
			children[int(ppid)] = append(children[int(ppid)], pid)
		}
	}
	out := []int{root}
	for i := 0; i < len(out) && i < 1<<16; i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// socketsOf collects the socket inodes the given processes hold.
func socketsOf(pids []int) map[uint64]bool {
	held := map[uint64]bool{}
	buf := make([]byte, 64)
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			n, err := unix.Readlink(dir+e.Name(), buf)
			if err != nil {
				continue
			}
			if rest, ok := strings.CutPrefix(string(buf[:n]), "socket:["); ok {
				if ino, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64); err == nil {
					held[ino] = true
				}
			}
		}
	}
	return held
}

// sameDev compares the kernel's internal dev_t (major << 20 | minor, as
// sock_diag reports it) with a stat st_dev.
func sameDev(kdev uint32, dev uint64) bool {
	return uint64(kdev>>20) == uint64(unix.Major(dev)) && uint64(kdev&0xfffff) == uint64(unix.Minor(dev))
}

// unixListener is one listening unix socket as sock_diag reports it.
type unixListener struct {
	ino    uint32 // the socket's inode (socket:[ino])
	vfsIno uint32 // the inode of the file it is bound to (low 32 bits)
	vfsDev uint32 // its device, as the kernel encodes dev_t
}

// Netlink sock_diag constants (linux/sock_diag.h, linux/unix_diag.h).
const (
	sockDiagByFamily = 20
	udiagShowVFS     = 0x2
	unixDiagVFS      = 1
	tcpListen        = 10
)

// unixListeners dumps the listening unix sockets of this network
// namespace with the file each is bound to.
func unixListeners() ([]unixListener, bool) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	req := make([]byte, unix.NLMSG_HDRLEN+24)
	binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
	binary.NativeEndian.PutUint16(req[4:], sockDiagByFamily)
	binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	r := req[unix.NLMSG_HDRLEN:] // struct unix_diag_req
	r[0] = unix.AF_UNIX
	binary.NativeEndian.PutUint32(r[4:], 1<<tcpListen)
	binary.NativeEndian.PutUint32(r[12:], udiagShowVFS)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, false
	}
	var out []unixListener
	buf := make([]byte, 1<<16)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, false
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, false
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return out, true
			case unix.NLMSG_ERROR:
				return nil, false
			}
			if l, ok := parseUnixDiag(m.Data); ok {
				out = append(out, l)
			}
		}
	}
}

// parseUnixDiag reads struct unix_diag_msg and its UNIX_DIAG_VFS
// attribute; a message without one is not a bound socket.
func parseUnixDiag(b []byte) (unixListener, bool) {
	const msgLen = 16
	if len(b) < msgLen {
		return unixListener{}, false
	}
	l := unixListener{ino: binary.NativeEndian.Uint32(b[4:])}
	for off := msgLen; off+4 <= len(b); {
		alen := int(binary.NativeEndian.Uint16(b[off:]))
		typ := binary.NativeEndian.Uint16(b[off+2:])
		if alen < 4 || off+alen > len(b) {
			return unixListener{}, false
		}
		if typ == unixDiagVFS && alen >= 12 {
			l.vfsIno = binary.NativeEndian.Uint32(b[off+4:])
			l.vfsDev = binary.NativeEndian.Uint32(b[off+8:])
			return l, true
		}
		off += (alen + 3) &^ 3
	}
	return unixListener{}, false
}
