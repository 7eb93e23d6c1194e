package initproc

import "golang.org/x/sys/unix"

// keepUmask gives the session init's main thread its own umask, so every
// command it forks later starts with the umask the session was started
// with.
//
// Why: the create guard's supervisor (seccomp.Supervise) performs each
// guarded creation itself and, at the first one, sets its process umask
// to 0 so it can apply the target's own umask exactly. umask belongs to
// the fs_struct every thread of a process shares, and a session's
// commands are forked by this init long after that first creation — so
// without this, every command after the first file was created started
// with umask 0000 and left world-writable files and directories (a
// 0777 .git, 0666 sources) in the user's workspace, where any other local
// user could then plant a hook the owner's git would run.
//
// unshare(CLONE_FS) copies the fs_struct (root, cwd, umask) for the
// calling thread only: the supervisor's threads keep the shared one and
// its umask 0. It must run before seccomp refuses unshare, on the main
// thread the commands are forked from (Main locks it; the Go runtime
// starts later threads from its template thread, made before this, so no
// other thread ever shares the copy).
func keepUmask() error {
	mask := unix.Umask(0)
	unix.Umask(mask)
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		return err
	}
	unix.Umask(mask)
	return nil
}
