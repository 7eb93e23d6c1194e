// Package memfd makes the sealed, executable memfds ringfence executes its
// carried programs from: the small init (initimage) and the landlock
// backend's exec stage (initproc). One place says how such a memfd is made
// and which seals hold it, so the two cannot drift apart.
//
// Threat model: a program executed from a path can be replaced between the
// decision to run it and the exec, or written through /proc/<pid>/exe by
// what it confines (runc's CVE-2019-5736). A memfd has no path on any
// filesystem, and once Seal has run, nothing — not this process, not a
// holder of another descriptor — can write it, grow it, shrink it or lift
// the seals. The caller keeps the descriptor close-on-exec and hands it to
// a child only on purpose.
//
// Gaps: where memfd_create is refused (vm.memfd_noexec=2, a seccomp filter)
// or a security module refuses exec of a memfd, Create or the exec fails
// and the caller must fall back (each caller says how). Linux only.
package memfd
