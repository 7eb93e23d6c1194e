package initimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fill puts data into the empty memfd fd. data is the blob, which lies in
// this executable's read-only segment, so fill first asks the kernel to
// copy it from the executable's own file (copyFromExe): the 3 MB then
// never pass through this process's memory, and on a host where a page
// fault is dear that is most of a copy's cost (bench: a process that makes
// the memfd 13.6 ms by write, 10.8 ms by sendfile, 8.3 ms without it).
// Where that cannot be done it writes from memory. The two sources are the
// same bytes: blob's pages are the executable file's page cache, mapped
// read-only, and /proc/self/exe is the file this process was started from
// (a rename or a new file at the path does not change it:
// TestReplacedBinaryCannotBecomeEmbeddedInit). It returns how the bytes
// got there, for doctor.
func fill(fd int, data string) (string, error) {
	err := copyFromExe(fd, data)
	if err == nil {
		return fromExe, nil
	}
	how := fromMemory + " (" + err.Error() + ")"
	if err := unix.Ftruncate(fd, 0); err != nil {
		return "", fmt.Errorf("initimage: emptying the init after a failed copy: %w", err)
	}
	buf := unsafe.Slice(unsafe.StringData(data), len(data))
	for off := 0; off < len(buf); {
		n, err := unix.Pwrite(fd, buf[off:], int64(off))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err == nil && n == 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			return "", fmt.Errorf("initimage: writing the init: %w", err)
		}
		off += n
	}
	return how, nil
}

// How the blob reached the memfd (fill).
const (
	fromExe    = "copied by the kernel from the executable"
	fromMemory = "written from memory"
)

// copyFromExe copies data into fd from the executable's file, at the
// offset its program headers give for data's address, and checks the
// copy's first and last page against data (an offset computed wrong
// fails there, not in the init's exec).
func copyFromExe(fd int, data string) error {
	exe, err := unix.Open("/proc/self/exe", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("initimage: opening /proc/self/exe: %w", err)
	}
	defer unix.Close(exe)
	addr := uint64(uintptr(unsafe.Pointer(unsafe.StringData(data))))
	off, err := fileOffset(exe, addr, uint64(len(data)))
	if err != nil {
		return err
	}
	for left := len(data); left > 0; {
		n, err := unix.Sendfile(fd, exe, &off, left)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("initimage: sendfile from the executable: %w", err)
		}
		if n == 0 {
			return errors.New("initimage: the executable ended before the init")
		}
		left -= n
	}
	page := min(4096, len(data))
	for _, at := range []int{0, len(data) - page} {
		got := make([]byte, page)
		if n, err := unix.Pread(fd, got, int64(at)); err != nil || n != page || !bytes.Equal(got, []byte(data[at:at+page])) {
			return fmt.Errorf("initimage: the copy from the executable differs from the init at %d (%v)", at, err)
		}
	}
	return nil
}

// fileOffset is where the size bytes at virtual address addr lie in the
// ELF file exe: inside one PT_LOAD segment's file bytes. Only a 64-bit
// little-endian executable loaded at its link addresses (not PIE, as Go
// links a static binary) is understood; anything else is an error.
func fileOffset(exe int, addr, size uint64) (int64, error) {
	var eh [64]byte
	if n, err := unix.Pread(exe, eh[:], 0); err != nil || n != len(eh) {
		return 0, fmt.Errorf("initimage: reading the ELF header: %v", err)
	}
	le := binary.LittleEndian
	const etExec = 2
	if string(eh[:4]) != "\x7fELF" || eh[4] != 2 || eh[5] != 1 || le.Uint16(eh[16:]) != etExec {
		return 0, errors.New("initimage: not a 64-bit little-endian ELF executable")
	}
	phoff, phentsize, phnum := le.Uint64(eh[32:]), int(le.Uint16(eh[54:])), int(le.Uint16(eh[56:]))
	if phentsize < 56 || phnum == 0 || phnum > 64 {
		return 0, errors.New("initimage: unexpected ELF program headers")
	}
	ph := make([]byte, phentsize*phnum)
	if n, err := unix.Pread(exe, ph, int64(phoff)); err != nil || n != len(ph) {
		return 0, fmt.Errorf("initimage: reading the ELF program headers: %v", err)
	}
	const ptLoad = 1
	for i := range phnum {
		p := ph[i*phentsize:]
		typ, off, vaddr, filesz := le.Uint32(p), le.Uint64(p[8:]), le.Uint64(p[16:]), le.Uint64(p[32:])
		if typ == ptLoad && addr >= vaddr && addr-vaddr <= filesz && size <= filesz-(addr-vaddr) {
			return int64(off + (addr - vaddr)), nil
		}
	}
	return 0, errors.New("initimage: the init is not in the executable's file")
}
