// Package execpath finds a bare program name on a command's own PATH, the
// one lookup every place that starts a command shares: the unconfined
// facade path (danger-full-access, and Local.LookPath for the code
// runner), the linux and landlock init's child (initproc), and
// bubblewrap's exec shim.
//
// # Threat model
//
// The command's working directory is the workspace, which the model
// writes. A PATH entry that is empty ("/usr/bin:" or "::") or relative
// (".", "bin") resolves against that directory, so a model that plants an
// executable named like a common tool (git, ls, python3) would have it run
// in place of the real one whenever the earlier entries miss it — for a
// later command the model did not write, or one a person approved by
// name. os/exec refuses such results (exec.ErrDot); Find skips such
// entries altogether, so only absolute directories are searched. A name
// holding a slash is used as given (it names a file by path, as execvp
// does, and the sandbox's view decides whether it may run).
//
// # Gaps
//
// The check is lexical: an absolute PATH directory that is itself inside
// the workspace (PATH=/workspace/bin:…) is searched, because the caller
// asked for it by absolute name. The same holds, with no request at all,
// for the PATH a command gets by default (the host's absolute entries):
// where it names directories under home (~/.local/bin, ~/go/bin,
// ~/.cargo/bin, ~/.pyenv/shims) and home is private, a command can write
// a program there — into the workspace's home layer, which persists — and
// every later confined command of that workspace that runs the name bare
// (ls, git; a shell's own lookup too) runs it, also one run under a wider
// policy or approved by name, where the unconfined user would have run
// the system's (checked through ringfence serve: a planted ~/go/bin/ls
// answers the next Execute's `ls`). homestate documents the persistence;
// the layer's program directories are not yet read-only or discarded.
// Find reads the filesystem (stat and
// access(2)) and so can race with a writer; what is executed is decided
// by the final execve, which the sandbox confines.
package execpath
