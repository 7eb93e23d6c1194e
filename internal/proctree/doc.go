// Package proctree walks and signals a process tree through /proc: the
// few lines both the supervisor (internal/run) and the subreaper
// (internal/reaper) need, kept small because the reaper is carried in
// the sandbox init's image (internal/confine/initimage), where every
// linked package costs every run.
//
// # Threat model
//
// The tree belongs to a command that may be hostile: it can fork as fast
// as it likes, exit, and have its pids reused. A walk is bounded (MaxTree)
// so a fork bomb cannot make it endless, and it reports pids, not
// processes: a caller that signals them must hold something that stops
// reuse (the supervisor holds the root unreaped; the reaper is the
// subreaper every orphan is re-parented to, and it reaps them itself) or
// accept that a signal may reach a new process of the same user.
//
// # Gaps
//
// A process that forks between two reads of /proc is missed by that walk;
// callers freeze what they find (SIGSTOP) and walk again until the set is
// stable, and a cgroup census is the complete answer where there is one.
package proctree
