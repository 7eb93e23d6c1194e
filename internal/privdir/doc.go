// Package privdir makes the private directories a ringfence process owns
// for its life (the run's temp dir, a run's overlay work directory) in a
// way that lets a later ringfence remove them when the owner died without
// cleaning up — SIGKILL, OOM, a power cut — and never while it lives.
//
// # How
//
// Make creates the directory under a staging name, opens it and takes an
// exclusive flock on it, then renames it to a final name drawn afresh
// (never derived from the staging name, which another user watching a
// shared parent sees at once and could plant a link at) without replacing
// anything (RENAME_NOREPLACE): a directory
// with its final name is always locked while its owner lives (the kernel
// drops the lock when the last descriptor closes, which death does). The
// descriptor is close-on-exec, so no child — the sandbox's command
// included — holds it.
//
// Sweep, called before a new one is made, removes every directory Make
// made under the parent (prefix, then "L") that belongs to this user and
// whose lock it can take (its owner is gone), and staging leftovers older
// than a minute. A directory of the prefix without the tag was made by a
// ringfence that did not lock — an older version, perhaps still running —
// and is never swept. It
// holds the lock while removing, so two sweepers never race on one.
// Sweep reads the parent's names in one getdents pass and looks at (lstat,
// open) only entries whose name carries the prefix, so a busy /tmp costs
// one directory read, not a stat per entry; every start still sweeps, so
// a killed run's directory is gone once the next ringfence has started.
//
// # Threat model
//
// The parent may be shared (/tmp, sticky and world-writable): Sweep only
// considers directories (never a link: opened O_NOFOLLOW) whose owner is
// this process's effective uid, checked on the opened descriptor; in a
// sticky directory nobody else can rename or remove them. Removal does
// not follow links inside (os.RemoveAll works with unlinkat). A sandboxed
// command that could open the directory and lock it itself would only
// keep it from being swept (a leak, not an escape).
//
// # Gaps
//
// A directory is swept only by a later ringfence that uses the same parent
// and prefix; until then it stays (its content is the dead run's scratch).
package privdir
