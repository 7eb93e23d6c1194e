// Package initimage carries the sandbox init as a small program of its
// own inside the ringfence binary, and gives the path to execute it from.
//
// Every confined run starts an init (internal/confine/initproc) in the new
// namespaces. Executing the whole ringfence binary for it cost, per run,
// the start of a 30 MB program: every linked package's initialisation
// (gRPC, protobuf, the MCP SDK, schemas, tables: ≈200 packages), some
// 850 page faults and ≈3 ms — twice under the landlock backend, whose
// exec stage was the init again (it is now a freestanding program,
// initproc/execstage). initmain is the init alone; its binary
// (built reproducibly by gen, committed as init_linux_amd64.bin with its
// record init_linux_amd64.sum) is embedded here, written once per process
// into a sealed memfd, and each child executes its own copy of that
// descriptor, passed as descriptor 5 (initproc.ImageFD), as /proc/self/fd/5.
// There is still one file to install. The same image answers the
// subreaper's entry point (internal/reaper), which internal/run starts the
// same way (ForChild) for a process-group run — every danger-full-access
// run — and bubblewrap's exec shim's (internal/confine/bwrap/shim), which
// the bwrap backend has bwrap execute from a descriptor it inherits: no
// run starts the whole ringfence binary a second time.
//
// # Threat model
//
//   - The init must be exactly the code this ringfence was built with. The
//     blob is part of the running image's memory; a file renamed over
//     ringfence, or a package upgrade, after it started changes nothing
//     (TestReplacedBinaryCannotBecomeEmbeddedInit, and internal/run's
//     TestReplacedBinaryCannotBecomeEmbeddedReaper). The memfd is sealed
//     against write, grow, shrink and further sealing before it is first
//     executed (runc's answer to CVE-2019-5736) and close-on-exec, so no
//     command and no other process of ours can change it; the init closes
//     its inherited copy first thing and is not dumpable, so a command
//     cannot open /proc/1/exe either; the reaper marks its copy
//     close-on-exec before the command starts (a danger-full-access
//     command, unconfined, could read the sealed image through the
//     reaper's /proc entry, and change nothing). A child never executes the process's
//     own descriptor number: os/exec's child moves descriptors to just above
//     the highest it was given, which once landed on it
//     (TestInitStartsWhateverTheDescriptorNumbers).
//   - The blob must be built from this tree's sources. The freshness test
//     (TestEmbeddedInitIsFresh) recomputes the digest of every source file
//     the init links and compares it with the record; with the recorded Go
//     version it also rebuilds the init and compares the bytes, so the
//     committed binary is shown to be what its source builds.
//   - The init must stay small: every package it links is carried in
//     every binary, copied into the memfd by every process and mapped
//     whole by every init (fault-around fills the mapping from the memfd's
//     pages, so its peak RSS is the blob plus ≈950 KiB of its own). The
//     init's import closure is checked against a deny-list (net/http,
//     net, crypto, math/big, mime, compress, the supervisors' packages:
//     imagesrc.Denied) by TestInitLinksNoHeavyPackage and by gen, and the
//     blob against imagesrc.MaxSize by TestEmbeddedInitIsSmall. The
//     parent's side of starting an init (NewCmd, which builds a
//     confine.Cmd) lives here for that reason, not in initproc.
//   - Where no memfd can be made (an old kernel, vm.memfd_noexec=2, a
//     seccomp profile that refuses memfd_create) or the build is not
//     linux/amd64, the init is the running binary itself (initproc.SelfExe):
//     the same source, the old cost. Nothing is weakened: the choice is
//     only where the same init code is read from.
//
// # Choosing
//
// RINGFENCE_INIT=self executes the running binary as before (as the init,
// the reaper and, opened through /proc/self/exe, the exec shim); =embedded
// requires the memfd (an error if it cannot be made). Unset, a program
// uses the embedded init. So does a test binary (internal/entry.UnderTest)
// when the blob is shown to be built from the sources it is run from (the
// digest TestEmbeddedInitIsFresh checks, computed once per test process,
// ≈0.15 s: sourcesAsRecorded): the tests then run what ships, and under
// -race every sandbox starts a 3 MB uninstrumented init rather than the
// whole race-instrumented test binary (internal/confine/linux's TestAttacks:
// 61 s → 12 s). When it cannot be shown — a change to the init's sources
// not yet regenerated, a test process outside the module or without the go
// tool — the test binary runs itself, so a change to initproc is tested as
// written without regenerating. initproc's own tests always run the source
// (initproc.SelfExe), race-instrumented.
//
// # Gaps
//
// Each process pays one copy of the blob into the memfd (≈3 MB) on its
// first run; a one-shot `ringfence run` pays it every time. The kernel
// copies it from the executable's own file (sendfile from /proc/self/exe
// at the blob's offset, fill_linux.go), so the blob is never faulted into
// the process (≈1 ms on the PVM host where a write from memory cost ≈3);
// where that cannot be done (a PIE build, no /proc) it is written from
// memory, and doctor says which. Both read the same page-cache bytes, as
// they are at the copy: the blob's pages are that file's, mapped
// read-only. Other architectures fall back to SelfExe until a blob is
// generated for them. Where the memfd can be made but a security module
// refuses to execute it, every run started from it fails (the init, the
// reaper, the shim alike) rather than falling back on its own:
// RINGFENCE_INIT=self is the way out.
package initimage
