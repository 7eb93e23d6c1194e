//go:build !linux

package workspace

import (
	"errors"
	"io/fs"
	"sync/atomic"
)

// Elsewhere there is no beneath-the-root lookup this package trusts, so New
// refuses and every primitive reports errNoSys.

var errNoSys = errors.New("workspace: not supported on this platform")

const supported = false

var errLoop = errNoSys

type sysStat struct {
	mode  fs.FileMode
	size  int64
	nlink uint64
	dev   uint64
	ino   uint64
	mtime int64
}

type resolver struct {
	rootfd    int
	noOpenat2 atomic.Bool
}

func (r *resolver) resolve(string, bool) (int, string, error) { return -1, "", errNoSys }
func (r *resolver) sysOpenRead(string) (int, error)           { return -1, errNoSys }
func (r *resolver) sysOpenDirRead(string) (int, error)        { return -1, errNoSys }

func sysOpenRoot(string) (int, error)               { return -1, errNoSys }
func sysFstat(int) (sysStat, error)                 { return sysStat{}, errNoSys }
func sysLstatAt(int, string) (sysStat, error)       { return sysStat{}, errNoSys }
func sysClose(int)                                  {}
func sysOpenChild(int, string) (int, error)         { return -1, errNoSys }
func sysReadDir(int) ([]dirent, error)              { return nil, errNoSys }
func sysCreateTemp(int, string) (int, error)        { return -1, errNoSys }
func sysMkdirAt(int, string) error                  { return errNoSys }
func sysRenameAt(int, string, string) error         { return errNoSys }
func sysUnlinkAt(int, string)                       {}
func sysFchmod(int, fs.FileMode) error              { return errNoSys }
func sysFsync(int) error                            { return errNoSys }
func sysSyncDir(int) error                          { return errNoSys }
func sysWrite(int, []byte) error                    { return errNoSys }
func sysRead(int, []byte) (int, error)              { return 0, errNoSys }
func readOnce(int, []byte) (int, error)             { return 0, errNoSys }
func isNotExist(error) bool                         { return false }
func isEscape(error) bool                           { return false }
func isLoop(error) bool                             { return false }
func isNotDir(error) bool                           { return false }
func isExist(error) bool                            { return false }
func isHostPerm(error) bool                         { return false }
func isNameLong(error) bool                         { return false }
func sysOpenDirAt(int, string) (int, error)         { return -1, errNoSys }
func sysReadNames(int, int) ([]string, bool, error) { return nil, false, errNoSys }
func sysUnlinkAtErr(int, string, bool) error        { return errNoSys }
func isNotEmpty(error) bool                         { return false }
