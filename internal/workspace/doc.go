// Package workspace is the file operations an agent's tools call — read,
// write, edit, list, glob, grep, media — beneath one policy's root.
//
// # Threat model
//
// These operations run in ringfence's own process, outside every namespace,
// Landlock ruleset and seccomp filter it builds for commands. A file tool
// that ignores the policy is therefore an escape no confinement can see.
// The adversary is the model (any path, pattern or size it names) and any
// command it ran before, which may have planted links, hard links, fifos
// and devices in the writable tree, and may keep changing the tree while
// a call runs.
//
// # What a call guarantees
//
// Every path goes through the one model-path reading first
// (internal/modelpath, shared with the tools and the facade): an absolute
// path under the mount path ("/workspace/src/a.go") is made relative, then
// pathrule.Clean decides; any other absolute path is refused
// (path-rejected, the path shown as given, cut at 512 bytes). The clean
// path is then opened beneath the root's descriptor with
// openat2(RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS): links that stay inside
// are followed, any that leads out (absolute, or ".." past the root) and
// every /proc magic link is refused. Where openat2 is missing (ENOSYS) a
// component walk does the same: each name opened O_NOFOLLOW relative to
// its parent's descriptor, links read and interpreted here, never by the
// kernel. The policy is then checked at the path's real, link-free
// location: a denied file reached through a link is denied-by-policy.
//
// Reads check the type on an O_PATH descriptor, so a fifo or device is
// never opened; the open for reading is O_NONBLOCK, link-free, and must
// reach the same inode. Reads take a required positive byte bound and are
// refused (over-budget), never cut. Writes go to a temp file in the same
// directory, are fsynced, renamed over the name and the directory fsynced;
// they are refused on a file with another hard link unless the policy
// allows aliased writes, re-checked just before the rename, and the temp
// file is removed on every failure. Walks (list, glob, grep) never follow a
// link: each directory is opened with no link allowed anywhere on its
// path, each file O_NOFOLLOW relative to its directory. They skip .git,
// honour .gitignore (switchable), skip denied subtrees silently, and stop
// at bounds they name in scope-limited outcomes. Outcomes show model
// paths, never host paths or contents.
//
// The walk decides the policy once per directory (policy.Tree): a
// directory's view knows the last layer containing it and the layers
// beneath it, so an entry costs a map lookup at most, not a Clean of its
// path against every layer; the answers are AccessAt's (fuzzed in package
// policy; TestGrepPagesAreComplete compares whole searches with a walk
// that asks AccessAt per path, carve-outs inside denied trees included).
//
// # Complete searches, in pages
//
// glob and grep find everything in their scope: nothing bounds how much
// they read (Options.MaxReadBytes is opt-in), only how much one answer
// shows (Options.MaxPageBytes of output, or the caller's MaxResults /
// MaxMatches). Results are sorted by path then line; a page that does not
// hold them all returns Next, the position it ended at, and a call with
// After set to it returns what follows. A cursor can only hide results: a
// file before it is not read, a directory whose every path sorts before it
// is not entered, and everything else goes through the same lookups and
// policy as without it (TestCursorOnlyHides tries cursors outside the
// root, in denied places and garbage). A grep with far more matches than a
// page keeps only the first files it needs (maxHeldLines) and forgets the
// rest, which the next page finds again; its Total is then -1. What a
// search cannot find at all — files over MaxFileBytes, the MaxEntries
// time guard — is named in a scope-limited outcome, never dropped
// silently.
//
// Writes (and removals) are also refused on names protected at any depth
// of a writable root (policy.MatchProtectedName: .envrc, .git/hooks/*,
// .git/config, a hook name, …; denied-by-policy with Reason
// "protected-name"): no layer holds them, and the backends' seccomp guard
// covers only commands, not this in-process fence. A file at a ".git"
// itself (a "gitdir:" pointer, which the guard admits only with content
// pointing into a git directory it holds) is refused the same way, since
// this fence does not read content (checkFileWrite).
//
// # For a file server
//
// Open streams a regular file through the same checks as ReadFile (no
// bound: the caller copies, never holds). ReadDir lists one directory with
// sizes, modes and times, showing a link as what it leads to only when
// that stays inside and is readable, bounded and said so (scope-limited).
// WriteStream is WriteFile from a reader with the caller's permission bits
// and a required byte bound (over-budget; the old file stays); the name as
// given is checked before any parent is made. Remove never follows a final
// link, refuses a non-empty directory unless recursive (invalid-arguments,
// DetailNotEmpty) and the root itself (DetailRoot; recursive empties it),
// and for a tree checks every name first and removes nothing when one is
// refused, then removes depth first with directories opened O_NOFOLLOW
// beneath their parent's descriptor, checking each name again.
//
// # The check-then-use race
//
// Every decision is made on a descriptor and every use goes through that
// descriptor or its parent's: a directory swapped for a link to the
// outside between check and use makes the call fail, never leak
// (TestLinkRace swaps one with renameat2(RENAME_EXCHANGE) throughout, and
// TestLinkRaceNaiveLeaks shows a path-based check-then-read does leak).
//
// # Errors
//
// Operations return (Result, error). A refusal or failure is an *outcome.Error
// (outcome.Of reads it) holding one outcome.Outcome; it wraps policy.ErrDenied for
// denied-by-policy and outside-write-root, pathrule.ErrPathRefused for
// path-rejected. Programming errors (a missing bound) wrap ErrUsage and
// are never outcomes. Choices the union leaves open: a hard-linked target
// is denied-by-policy (axis write, Reason "hard-link"); edit_file's
// old_string not found is no-matches (Pattern "old_string", never the text
// itself); found more than once without replaceAll is invalid-arguments
// with the count in Observed. Lookups refused on disk rather than by name
// are path-rejected with Reason "escape" or "link-loop".
//
// # Known gaps
//
//   - A directory held open by a call and then renamed outside the root by
//     a concurrent process is still used (the component walk only; openat2
//     refuses with EAGAIN). Inside the sandbox only writable places can be
//     renamed, so the data was the command's to move anyway.
//   - A file hard-linked into the root from outside is readable: the
//     policy decides by path and the link is a real name in the root.
//     Writes to such files are refused; reads are not.
//   - Ownership and set-id bits are not preserved by writes.
//   - The symlink-case real path comes from /proc/self/fd; without /proc
//     the component walk is used instead.
//   - .gitignore: the common subset (see ignore.go); no info/exclude, no
//     global excludes, and it is honoured outside git repositories too.
//   - Under a bound reached by the parallel walker (MaxEntries,
//     MaxReadBytes), which files were searched before it stopped can vary
//     between runs; results are sorted.
//   - Each page is a fresh search: a tree that changes between pages shows
//     the change, and a file grown while it is searched is searched as
//     long as fstat said it was.
//   - grep reads a file whole; one over MaxFileBytes (64 MiB) is skipped
//     and counted in a "file-size" outcome, not searched in pieces.
//   - Binary detection is a heuristic (a NUL, or more than 5% invalid UTF-8
//     in the first 8 KiB).
//   - Not supported outside Linux: New returns ErrUnsupported.
//   - Remove: a name planted between a tree's check pass and its removal
//     pass stops the removal there, with what came before it removed; a
//     tree deeper than 512 levels or a directory of more than 2^20 names
//     is refused.
package workspace
