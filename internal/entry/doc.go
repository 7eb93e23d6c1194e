// Package entry is the one table of a binary's hidden entry points: the
// ways ringfence re-executes its own binary (or a test binary) as
// something other than its ordinary main.
//
// Two kinds of entry, both looked up by Dispatch before main does
// anything else:
//
//   - Points, keyed by os.Args[1], registered by the package that owns
//     them from an init function, so every binary that links the package
//     has them: `__confine` (initproc: the sandbox init), `__reap`
//     (reaper: the subreaper), `__exec` (bwrap/shim: the exec shim). A test may
//     add its own (bwrap's `__attack`). A point's name starts with "__",
//     which no ringfence subcommand does, so one never shadows the other.
//   - Roles, keyed by an environment variable, registered only by a test
//     binary's TestMain: a test re-executes its own binary with the
//     variable set to make it a helper (a server, a guarded child). The
//     shipped binary registers none, so no environment can make it one.
//
// The ringfence CLI's main, ringfence.MaybeInternal (which programs
// embedding the library call) and every TestMain go through Dispatch;
// a TestMain is normally just
//
//	func TestMain(m *testing.M) { entry.Tests(m) }
//
// Dispatch also records that this binary dispatches (Dispatching): run
// refuses to re-execute as the reaper a binary that never called it,
// since that would start the binary's ordinary main instead.
//
// # Threat model
//
// The argv and environment of a re-executed binary are chosen by
// ringfence's own supervisor, never by the model; the entry points
// themselves re-check what they were given (the init reads its spec from
// an inherited pipe, the reaper demands its marker variable). Points are
// checked before roles, so a role variable that leaks into a re-executed
// init cannot turn it into a test helper. Registering a name twice
// panics at start-up rather than letting one entry silently replace
// another.
package entry
