package run

// A descriptor handed to a command is more than its bytes: the command can
// use it as what it is. A directory opens names beneath it (openat, or
// /proc/self/fd/0/…) in the host's mount tree, past every mask and
// read-only bind of the view; a regular file or a device reopens through
// /proc/self/fd/0 with another access mode (a file redirected read-only
// is written); an IP socket belongs to the host's network namespace, and
// a TCP one is disconnected (connect AF_UNSPEC) and connected anywhere.
// Only a pipe, which gives nothing but its bytes (reopening it reaches the
// same pipe), and /dev/null are handed over as they are; everything else
// is copied to the command through a pipe.

// File types of st_mode (S_IFMT), and /dev/null's device number (1, 3).
const (
	modeType = 0o170000
	modeFIFO = 0o010000
	modeChar = 0o020000
	devNull  = 1<<8 | 3
)

// handOver decides whether a stdin of this mode (st_mode) and device
// number (st_rdev as fstat gives it: major<<8 | minor for small numbers)
// may be given to the command as is.
func handOver(mode uint32, rdev uint64) bool {
	switch mode & modeType {
	case modeFIFO:
		return true
	case modeChar:
		return rdev == devNull
	}
	return false
}
