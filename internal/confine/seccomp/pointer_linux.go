package seccomp

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/policy"
)

// maxPointer bounds a ".git" file or commondir: one line with a path.
const maxPointer = 4096

// pointer reports whether an open at l writes a git pointer (a ".git"
// file, a commondir) that the guard accepts by content (vPointer).
func (s *supervisor) pointer(l *loc, flags int) bool {
	if s.rules.Names == nil || l.dot || l.proc || flags&(unix.O_CREAT|writeFlags) == 0 {
		return false
	}
	a := actWrite
	if flags&unix.O_CREAT != 0 {
		a = actFile
	}
	return s.rules.Names.decide(s.npath(l), a) == vPointer
}

// openPointer answers an open of a git pointer. Its content is unknown
// until the command has written it, so the command gets the write end of
// a pipe instead of the file; when the last copy of that end is closed,
// the content is checked (checkPointer) and, if it points where it may, a
// fresh file with it is renamed into place. Otherwise nothing is written.
// `git worktree add` and `clone --separate-git-dir` write these with
// open, write, close (write_file), which a pipe serves; a program that
// reads back or seeks its own pointer file fails instead.
func (s *supervisor) openPointer(t *target, n notif, l *loc, flags int, mode uint64) notifResp {
	if !s.mayCreate(l, true) {
		return answerErrno(n.id, errRefused)
	}
	var st unix.Stat_t
	err := unix.Fstatat(l.dir, l.name, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case err == nil && flags&unix.O_CREAT != 0 && flags&unix.O_EXCL != 0:
		return answerErrno(n.id, unix.EEXIST)
	case err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG:
		return answerErrno(n.id, errRefused)
	case err != nil && flags&unix.O_CREAT == 0:
		return answerErrno(n.id, errnoOf(err, unix.ENOENT))
	}
	m, errno := t.createMode(uint32(mode) & 0o666)
	if errno != 0 {
		return answerErrno(n.id, errno)
	}
	dir, err := unix.Dup(l.dir)
	if err != nil {
		return answerErrno(n.id, errnoOf(err, unix.EMFILE))
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		unix.Close(dir)
		return answerErrno(n.id, errnoOf(err, unix.EMFILE))
	}
	r := os.NewFile(uintptr(p[0]), "pointer")
	name, full := l.name, l.path
	go func() {
		defer unix.Close(dir)
		defer r.Close()
		data, err := io.ReadAll(io.LimitReader(r, maxPointer+1))
		_, _ = io.Copy(io.Discard, r) // never leave the writer blocked
		if err != nil || len(data) > maxPointer {
			return
		}
		_ = s.perform(func() error {
			if err := s.checkPointer(dir, full, data); err != nil {
				return err
			}
			return writeFresh(dir, name, data, m)
		})
	}()
	return s.sendFd(n.id, p[1], flags&unix.O_CLOEXEC != 0) // closes p[1]
}

var errPointer = errors.New("git pointer leads outside the guarded git directories")

// checkPointer accepts the content of a git pointer at full (dir is its
// directory, opened): a ".git" file must say "gitdir: P" with P a git
// directory inside a worktrees/ or modules/ tree of a .git the guard
// holds; a commondir (X/worktrees/W/commondir) must lead to X. Paths are
// resolved as the host's git will resolve them — physically, from the
// pointer's own directory — and the real path is what is checked.
func (s *supervisor) checkPointer(dir int, full string, data []byte) error {
	line, rest, _ := bytes.Cut(data, []byte("\n"))
	if len(bytes.TrimSpace(rest)) > 0 || bytes.IndexByte(line, 0) >= 0 {
		return errPointer
	}
	target := strings.TrimSpace(string(line))
	isGitFile := path.Base(full) == ".git"
	if isGitFile {
		var ok bool
		if target, ok = strings.CutPrefix(target, "gitdir:"); !ok {
			return errPointer
		}
		target = strings.TrimSpace(target)
	}
	if target == "" {
		return errPointer
	}
	fd, err := unix.Openat(dir, target, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return errPointer
	}
	real, errno := fdPath(fd)
	unix.Close(fd)
	if errno != 0 {
		return errPointer
	}
	if isGitFile {
		m := s.rules.Names.match(s.npathOf(real))
		if m.Kind != policy.NameGitDir || m.Self || m.Name == ".git" || s.rules.Protected(real) {
			return errPointer
		}
		return nil
	}
	wt := path.Dir(path.Dir(full)) // X/worktrees
	if path.Base(wt) != "worktrees" || real != path.Dir(wt) {
		return errPointer
	}
	return nil
}
