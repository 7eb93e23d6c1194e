package seccomp

import (
	"net/netip"

	"github.com/ringfence/ringfence/policy"
)

// Rules are the decisions Supervise asks for. Each function gets an
// absolute, symlink-free path as the supervisor's (and the command's) mount
// view names it. A nil function allows nothing for AllowUnix and protects
// nothing for Protected.
type Rules struct {
	// AllowUnix reports whether a filesystem unix socket may be reached
	// by connect or sendto (Options.DenyUnixConnect).
	AllowUnix func(path string) bool
	// Protected reports whether path is, or lies beneath, a protected
	// path: no name may be created, linked or renamed there, nor renamed
	// away from there (Options.GuardCreate).
	Protected func(path string) bool
	// Encloses reports whether a protected path lies strictly beneath
	// path (path is an ancestor of one, e.g. <root>/.git for
	// <root>/.git/hooks). An empty directory may be made there (what
	// lands inside it is checked again), but nothing that brings content
	// along: a file (a ".git" file redirects git to another directory), a
	// symlink, a hard link or a renamed directory. Required when Protected
	// is set: Supervise refuses to start without it.
	Encloses func(path string) bool
	// Confine, when set, is called once on each OS thread the supervisor
	// performs calls for the command on (threads kept for later calls,
	// never handed back to the Go runtime, exiting with the supervisor);
	// every such call runs on one of them. It must restrict
	// the calling thread as the command is restricted: the init passes a
	// function that applies the command's Landlock ruleset to the calling
	// thread only (no_new_privs first). Required whenever the supervisor's
	// threads are outside the command's Landlock domain (Landlock ABI < 8,
	// where the init restricts only its main thread), or creations made
	// for the command would escape its Landlock rules. An error refuses
	// the call (EACCES).
	Confine func() error
	// MetaWritable, when set, reports whether a file's metadata (mode,
	// owner, times, extended attributes) may be changed at path: the
	// supervisor of a filter built with Options.GuardMeta performs such a
	// change only where it returns true (else EPERM). Nil means no path
	// rule: only the set-id rules apply (the mount view's read-only binds
	// hold metadata on the linux and bwrap backends).
	MetaWritable func(path string) bool
	// PeerInside, when set, is asked before a supervised connect or
	// datagram send reaches a socket that AllowUnix allowed but
	// AllowUnixHost did not name: it reports whether the process bound to
	// it (peer pid as the supervisor's pid namespace numbers it, 0 when
	// that process is outside it) belongs to the sandbox. A host process
	// listening on a socket file inside a writable root is a host socket.
	PeerInside func(pid int32) bool
	// PeerHeld, when set, is asked when PeerInside refuses a listener's
	// pid: whether a sandbox process holds the listening socket bound at
	// the file (dev, ino) (its creator may have exited, as a daemon's
	// does). The landlock backend passes DescendantHolds.
	PeerHeld func(dev, ino uint64) bool
	// AllowUnixHost reports whether a socket path is explicitly allowed
	// whoever listens on it (the policy names it). Only consulted with
	// PeerInside.
	AllowUnixHost func(path string) bool
	// PeerCheckAbstract applies PeerInside to abstract unix sockets too,
	// for a sandbox that shares the host's network namespace (where a host
	// process's abstract socket is reachable by name): a stream or
	// seqpacket connect is refused unless the listener is inside, and a
	// datagram connect or send to an abstract address, which has no peer
	// to check, is refused outright. Only consulted with PeerInside.
	PeerCheckAbstract bool
	// Names, when set, also protects by name at every depth under the
	// writable roots (NameGuard): creations, write-opens and truncations
	// (Options.GuardWrite routes those), links and renames on both sides.
	Names *NameGuard
	// KeepAncestors refuses renaming a directory that encloses a
	// Protected path (Encloses): the protected content would keep its
	// inodes under a new, unprotected path. Set it when Protected holds
	// existing read-only paths that no mount pins (the landlock backend,
	// with Options.GuardRemove).
	KeepAncestors bool
	// InetConnect, when set, decides every IP destination a supervised
	// connect, sendto or sendmsg names (a sandbox sharing the host's
	// network whose only way out is a proxy on loopback: ProxyOnly). The
	// address is read once; it returns the address the supervisor
	// connects to instead, or false (EACCES). With Options.GuardListen,
	// listen(2) on an IP socket is refused too. Nil: IP destinations are
	// carried out unchanged (the mount view and namespaces hold them).
	InetConnect func(netip.AddrPort) (netip.AddrPort, bool)
}

// Protect is a set of protected absolute paths, each protecting itself and
// everything beneath it; its methods fit Rules.Protected and
// Rules.Encloses. The paths must be symlink-free, as the view names them.
type Protect []string

// Covers reports whether p is, or lies beneath, one of the paths.
func (s Protect) Covers(p string) bool {
	for _, q := range s {
		if policy.Contains(q, p) {
			return true
		}
	}
	return false
}

// Encloses reports whether one of the paths lies strictly beneath p.
func (s Protect) Encloses(p string) bool {
	for _, q := range s {
		if policy.Clean(q) != policy.Clean(p) && policy.Contains(p, q) {
			return true
		}
	}
	return false
}

// Rules returns the guard rules for s, keeping allowUnix for sockets.
func (s Protect) Rules(allowUnix func(string) bool) Rules {
	return Rules{AllowUnix: allowUnix, Protected: s.Covers, Encloses: s.Encloses}
}
