package seccomp

import (
	"errors"
	"strconv"
	"strings"
)

var errNoPid = errors.New("seccomp: the task has no pid in this /proc")

// fdinfoPid reads the "Pid:" line of a pidfd's fdinfo; 0 or -1 means the
// task is not visible in (or has left) that numbering.
func fdinfoPid(info string) (string, error) {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(line, "Pid:"); ok {
			v = strings.TrimSpace(v)
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				return v, nil
			}
			return "", errNoPid
		}
	}
	return "", errNoPid
}
