//go:build unix

package homestate

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkOwner refuses a directory this user does not own.
func checkOwner(d string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("state directory %s: no owner information", d)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("state directory %s is owned by uid %d, not by this user", d, st.Uid)
	}
	return nil
}
