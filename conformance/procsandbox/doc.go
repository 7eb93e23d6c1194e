// Package procsandbox is a reference adapter: the smallest honest
// implementation of ringfence.Sandbox, and the example a third party can
// follow to wrap its own sandbox and prove it with package conformance.
//
// It runs commands as ordinary processes in a directory. It is NEVER a
// security boundary: a command can read and write anything the user can,
// reach any host and signal any process. Its Isolation says exactly that
// (every claim false), which is why it passes the conformance suite — it
// claims nothing it lacks.
//
// What it does hold to, because the contract asks it of every sandbox:
//
//   - the environment is an allow-list: PATH (overridable), Options.Env and
//     ExecOptions.Env; nothing from the host's environment;
//   - a timeout or cancellation stops the command's tree: on Linux every
//     descendant still attached (found through /proc, frozen with SIGSTOP,
//     then killed, even one that called setsid), then its process group;
//     elsewhere the process group only;
//   - output is bounded per stream (Options.MaxOutput);
//   - the file methods refuse every model path package pathrule refuses and
//     any path whose existing part resolves (through links) outside the
//     root; writes are atomic (temp file and rename), so a link or a hard
//     link planted in the root is replaced, never written through.
//
// Known gaps, beyond "no isolation": the beneath-the-root check is a
// check-then-use, so a concurrent command can race it by swapping a
// directory for a link; a daemon that double-forks away before the timeout
// is not found (ringfence.Local uses a pid namespace or a subreaper).
package procsandbox
