// Package shim is the bwrap backend's exec shim: the entry point `__exec`
// (Arg) that bubblewrap executes inside the sandbox as its pid 1, which
// starts the command, supervises its unix-socket connects and protected
// creations (seccomp user notification), hosts the domains network's
// in-namespace side, and reports the command's exact start and end on a
// status descriptor (see Main, and internal/confine/bwrap's doc for the
// whole design).
//
// It is its own package so that the carried init image
// (internal/confine/initimage) can link it without bwrap's planner: the
// supervisor has bwrap execute the shim from the sealed memfd rather than
// from the path ringfence was installed at. It links only what the init
// links already (seccomp, sandboxnet, initproc's privilege drop, status,
// policy, execpath).
//
// # Threat model
//
//   - The command runs as the shim's child under the shim's filters; the
//     shim is non-dumpable and dies with bwrap, and marks every descriptor
//     above stderr close-on-exec (its status descriptor, the image it was
//     executed from, anything bwrap passed on) before the command starts.
//   - It must be ringfence's own code: bwrap executes it from a descriptor
//     (the image, or the running binary's /proc/self/exe), so a binary
//     renamed over ringfence's cannot run as it (bwrap's
//     TestReplacedBinaryCannotBecomeShim and …EmbeddedShim).
//   - Its argv is built by the planner, never by the model; a malformed one
//     is a usage error (125) before the shim does anything.
//
// # Gaps
//
// A program embedding the library that sets bwrap's Options.Self (a
// binary other than itself, without a carried image) has that path opened
// when each sandbox is planned: a replacement made before then runs as
// the shim.
package shim
