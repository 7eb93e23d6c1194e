// Package probe gathers the host facts `ringfence doctor` reports and
// `--backend auto` decides from: kernel and architecture, Landlock ABI,
// seccomp (filters, user notification), user namespaces (and every setting
// that explains why not), cgroups (v1, v2 or hybrid; where memory and pids
// live; whether this user can make groups there), bwrap, the linux
// backend's own trial (and the steps it leaves out here, see
// linux.Degraded), and whether this is a container and what its runtime
// took away (user namespaces, a seccomp filter in force, a masked /proc,
// a read-only /sys, capabilities, cgroup delegation).
//
// # What it guarantees
//
// Every fact source is injected (Sources), so Probe is deterministic and a
// simulated host (no user namespaces, no Landlock, no bwrap, an
// unprivileged Ubuntu user, a podman container with the default and a
// no-namespaces profile) is a table entry with a golden report. No trial
// runs a program from the image: the user namespace trial is a clone whose
// execve the kernel refuses by its path's length, the linux trial
// re-executes this binary as its init. Choose
// and Features are pure functions of a Report: auto picks linux where user
// namespaces and the linux backend's own trial work, else a working bwrap,
// else Landlock (ABI >= 1), else
// "none", under which confining policies are refused. Features states, per
// backend, whether each policy feature is enforced full, partial or not at
// all, always with a reason.
//
// # Threat model
//
// The probe must not change the host or the calling process: the user
// namespace trial clones a child with CLONE_NEWUSER|NEWNS|NEWPID (and runs
// nothing in it: no program from the image is needed),
// the cgroup trial makes and removes an empty group, Landlock and seccomp
// are asked what they support without installing anything, and bwrap is
// tried in a throwaway sandbox.
//
// # Known gaps
//
// A fact is true when probed: a sysctl changed later is not seen. Features
// describes each backend's design on this host's facts; the backends report
// the enforcement of each actual policy themselves (confine.Enforcement),
// which is what a run is held to. In a cgroup namespace whose paths do not
// match the mount's root, the group directory may be misjudged, in which
// case the trial fails and says so.
package probe
