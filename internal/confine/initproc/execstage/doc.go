// Package execstage carries the landlock backend's exec stage for linux/amd64
// as a small freestanding program (csrc/stage.c, built by gcc without
// libc), so a nested run starts one Go program (the init) instead of two.
//
// The init (initproc, nest_linux.go) puts the image in a sealed memfd
// before its own Landlock domain applies and, for each command, forks and
// executes it from there: it adds a Landlock layer that only scopes
// signals and abstract unix sockets, then executes the command. It does
// what initproc's Go exec stage does (execStage, nestDomain) without the
// ≈6 ms start of a Go runtime on every run.
//
// Threat model: the stage runs with everything the init applied (its
// Landlock domain, seccomp, no_new_privs, no capabilities) and holds
// nothing the command will not: its argv and environment are the
// command's, its only other descriptor is the report pipe, made
// close-on-exec before anything else. It is static, with no interpreter,
// so the command's environment (LD_PRELOAD and the like) does not reach
// it. It is executed from a memfd sealed against writes, never by a path,
// so nothing on the host can replace it. A failure is reported on the
// pipe and ends the stage before the command runs.
//
// The blob is built from the source by `go generate` (gen), reproducibly
// for one gcc: its record names the gcc, the source's digest and the
// blob's. TestBlobIsFromSource fails when the source changed without a
// regeneration, and rebuilds the blob byte for byte where the recorded
// gcc is the one installed.
//
// Gaps: only linux/amd64 has a blob; elsewhere Image is nil and the init
// runs its Go exec stage, as before.
package execstage

//go:generate go run ./gen
