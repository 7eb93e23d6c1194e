package initimage

import (
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/entry"
	"github.com/ringfence/ringfence/internal/memfd"
	"golang.org/x/sys/unix"
)

// minFD is the lowest descriptor number the process's memfd may have: out
// of the way of the low numbers a program opens and closes all the time
// (one closed by mistake elsewhere is refused by stillOurs, not reused at
// once). No child executes this number: os/exec's child moves descriptors
// of its own to just above the highest one it was given, which in a
// process holding ~100 descriptors was this one (the exec then failed with
// EACCES). Each child gets a descriptor of its own at initproc.ImageFD.
const minFD = 100

var image struct {
	once sync.Once
	path string
	why  string // why the init is the running binary, if it is
	err  error
	fd   int         // the memfd, when path names it
	id   unix.Stat_t // what fd was when it was sealed
	how  string      // how the blob reached the memfd (fill)
}

// Path names the init: /proc/self/fd/N of this process's sealed memfd
// holding the carried init, or initproc.SelfExe. The memfd is made once
// per process and kept; the choice (see the package doc) is read once too.
// A child does not execute this path but its own descriptor of the memfd
// (NewCmd, initproc.ImageFD).
func Path() (string, error) {
	image.once.Do(func() {
		fresh := true
		src, err := choose(os.Getenv(Env), entry.UnderTest(), blob != "", func() bool {
			fresh = sourcesAsRecorded()
			return fresh
		})
		if err != nil {
			image.err = err
			return
		}
		if src == fromSelf {
			image.path, image.why = initproc.SelfExe, "chosen"
			if !fresh {
				image.why = "a test binary, and the carried init is not shown to be built from the sources on disk: they run as written"
			}
			return
		}
		fd, how, err := sealed(blob)
		if err == nil {
			err = unix.Fstat(fd, &image.id)
		}
		switch {
		case err == nil:
			image.fd, image.path, image.how = fd, "/proc/self/fd/"+strconv.Itoa(fd), how
		case src == mustEmbedded:
			image.err = err
		default:
			image.path, image.why = initproc.SelfExe, err.Error()
		}
	})
	if image.err == nil && image.path != initproc.SelfExe {
		if err := stillOurs(); err != nil {
			return "", err
		}
	}
	return image.path, image.err
}

// stillOurs checks that the memfd's descriptor still holds the memfd: a
// descriptor closed by mistake elsewhere in the process and reused would
// otherwise make the path name another file. Fail closed: no init runs.
func stillOurs() error {
	return sameImage(image.fd)
}

// sameImage checks that fd holds the sealed memfd.
func sameImage(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Dev != image.id.Dev || st.Ino != image.id.Ino {
		return fmt.Errorf("initimage: descriptor %d no longer holds the sealed init (%v)", fd, err)
	}
	return nil
}

// imageFile is a descriptor of its own on the sealed memfd, for one child
// to inherit as initproc.ImageFD (NewCmd); whoever starts the child closes
// it. Checked after the copy, so what the child executes is the memfd.
func imageFile() (*os.File, error) {
	fd, err := unix.FcntlInt(uintptr(image.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("initimage: copying the init's descriptor: %w", err)
	}
	if err := sameImage(fd); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "ringfence-init"), nil
}

// Identity is the device and inode of this process's sealed memfd, which
// /proc/<pid>/exe of every process executing the carried image leads to
// (internal/run recognises its runners by it); ok is false where the
// image is the running binary.
func Identity() (dev, ino uint64, ok bool) {
	if path, err := Path(); err != nil || path == initproc.SelfExe {
		return 0, 0, false
	}
	return image.id.Dev, image.id.Ino, true
}

// Describe says where the init is executed from, for doctor.
func Describe() string {
	path, err := Path()
	switch {
	case err != nil:
		return err.Error()
	case path != initproc.SelfExe:
		return fmt.Sprintf("embedded (%d KiB, sealed memfd, %s)", len(blob)>>10, image.how)
	case blob == "":
		return "the ringfence binary (no init is carried for this platform)"
	}
	return "the ringfence binary (" + image.why + ")"
}

// sealed writes data into a new memfd, seals it and moves it to a
// descriptor at or above minFD, which it returns with how data got there.
func sealed(data string) (int, string, error) {
	fd, err := memfd.Create("ringfence-init")
	if err != nil {
		return -1, "", fmt.Errorf("initimage: %w", err)
	}
	defer unix.Close(fd)
	how, err := fill(fd, data)
	if err != nil {
		return -1, "", err
	}
	if err := memfd.Seal(fd); err != nil {
		return -1, "", fmt.Errorf("initimage: %w", err)
	}
	high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, minFD)
	if err != nil {
		return -1, "", fmt.Errorf("initimage: moving the init's descriptor: %w", err)
	}
	return high, how, nil
}
