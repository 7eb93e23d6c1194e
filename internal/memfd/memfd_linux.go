package memfd

import (
	"errors"
	"fmt"
	"io"

	"golang.org/x/sys/unix"
)

// Seals are the seals Seal adds: no write, no size change, no new seal.
const Seals = unix.F_SEAL_SEAL | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_WRITE

// Create makes an empty memfd named name (as /proc shows it), close-on-exec,
// that allows sealing and is executable: MFD_EXEC says so where the kernel
// knows the flag (6.3, vm.memfd_noexec); older kernels refuse the flag and
// make every memfd executable.
func Create(name string) (int, error) {
	const flags = unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING
	fd, err := unix.MemfdCreate(name, flags|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		fd, err = unix.MemfdCreate(name, flags)
	}
	if err != nil {
		return -1, fmt.Errorf("memfd_create %s: %w", name, err)
	}
	return fd, nil
}

// Seal adds Seals to the memfd fd.
func Seal(fd int) error {
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, Seals); err != nil {
		return fmt.Errorf("sealing memfd: %w", err)
	}
	return nil
}

// Sealed makes a memfd holding data, sealed (Create, then Seal), and
// returns its descriptor; on an error no descriptor is left open.
func Sealed(name string, data []byte) (int, error) {
	fd, err := Create(name)
	if err != nil {
		return -1, err
	}
	for off := 0; off < len(data); {
		n, err := unix.Write(fd, data[off:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err == nil && n == 0 {
			err = io.ErrShortWrite
		}
		if err != nil {
			unix.Close(fd)
			return -1, fmt.Errorf("writing memfd %s: %w", name, err)
		}
		off += n
	}
	if err := Seal(fd); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
