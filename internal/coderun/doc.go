// Package coderun runs a snippet of model-written code — python (python3),
// javascript (node), bash or sh — under the sandbox's own confinement,
// with its inputs staged and its outputs collected explicitly rather than
// guessed. It is the engine of the run_code tool; the tool decides
// whether a call may run (classification, gate), this package runs it.
//
// # One call
//
//  1. The interpreter is looked up on the PATH commands get (the sandbox
//     sees the host's system directories). Missing: an *outcome.Error with kind
//     missing-interpreter and Program set, before anything is made.
//  2. A read-only session is refused (unavailable): it grants no private
//     temp dir, so the call directory would be neither writable nor
//     visible to the command.
//  3. Input names pass the model-path rule (subdirectories allowed, no
//     escape), are valid UTF-8, distinct, never manifest.json and never a
//     directory of another; count and total bytes are bounded (default 64
//     and 16 MiB; over-budget, nothing staged). A fromWorkspace input is
//     read through the workspace fence with the remaining budget as its
//     bound, so a denied path is denied and a large one is refused, not
//     cut.
//  4. A fresh directory inside the sandbox's private temp dir receives
//     main.<ext> (the code, mode 0444), inputs/ (the files, 0444, and
//     inputs/manifest.json: {"inputs":[{"name","size","sha256"}]}) and an
//     empty outputs/. The command is `<interpreter> main.<ext>` started
//     in that directory (or in the workspace root with InWorkspace), with
//     RINGFENCE_INPUT_DIR and RINGFENCE_OUTPUT_DIR set to the paths it
//     sees (the backends keep host paths for the temp dir). The policy
//     request carries two read restrictions, inputs/ and the code file,
//     so the command cannot change them; a restriction only narrows, so
//     it needs no approval. Timeouts, output ceilings, limits, network and
//     narration are ExecRequest's, exactly as for run_command.
//  5. After the run (unless the runner never started: then Artifacts is
//     nil and ArtifactsCollected false), outputs/ is walked: each regular
//     file becomes an artifact with its name, size, MIME type and
//     SHA-256; content inline up to MaxInlineBytes (and 4× that per
//     result), larger files up to MaxArtifactBytes saved into the
//     workspace under SaveLargeTo/<call id>/ through the workspace's
//     WriteFile (so the policy fence applies; a read-only workspace leaves
//     them refused over-budget), anything larger refused over-budget.
//     An empty outputs/ is an empty, non-nil list.
//  6. The call directory is removed, whatever happened (a directory the
//     command made unwritable is made writable first).
//
// # Threat model
//
// The code is the model's and untrusted; it runs with exactly the
// authority run_command has under the same policy, no more. What this
// package adds, and defends:
//
//   - The code is never an argument (`python3 -c CODE` would show it in
//     every process listing and in /proc/<pid>/cmdline): it is a file.
//     It never appears in an error or a narration (errors carry kinds,
//     counts and bounds only).
//   - Outputs are a path back into ringfence, which reads them unconfined.
//     A link planted in outputs/ (to /etc/passwd, to a workspace file the
//     policy denies, to a directory) would make ringfence read, for the
//     model, what the command itself may not. So nothing there is
//     followed: entries are judged by Lstat, only regular files are
//     opened (O_NOFOLLOW|O_NONBLOCK, then checked to be the inode Lstat
//     saw), every access goes through an os.Root so no name leads out,
//     and links, fifos, sockets and devices are listed as refused and
//     never read. outputs/ itself replaced by a link is refused the same
//     way. The call directory is opened before the run and read through
//     that descriptor afterwards, so renaming it aside and planting a
//     look-alike changes nothing (the linux backend pins it with EBUSY
//     and Landlock refuses the rename anyway).
//   - Outputs as a confusion and exhaustion path: the walk is bounded in
//     entries (MaxArtifacts, 4× that looked at), depth (16), bytes read
//     (MaxCollectBytes) and bytes carried inline; what is past a bound is
//     reported as such (ArtifactsCut, OmittedArtifacts, not-collected),
//     never silently dropped. Names are shown relative to outputs/, and
//     saved files land only in a per-call directory under SaveLargeTo,
//     through the workspace fence, never over a path the model chose
//     outside it.
//   - Inputs: staged by ringfence, read-only to the command, so the code
//     cannot make a later reader of the manifest believe a different
//     file was given.
//
// # Gaps
//
//   - Under danger-full-access nothing is confined: the read-only
//     restrictions are not enforced (only the 0444 modes, which root
//     ignores) and the code can write anywhere ringfence can.
//   - Under the landlock backend, read-only restrictions inside a
//     writable root cannot be enforced by Landlock alone (it cannot
//     subtract); Enforcement says partial.
//   - The read-only check resolves the policy without the call's
//     approval, so an approval that would raise a read-only session to
//     workspace-write is not honoured here (run_code mints none today).
//   - A single-call approval is spent by the run itself; the runner's own
//     Policy check never spends one.
//   - Artifact names may hold any byte the filesystem takes; they are
//     quoted when shown, but a name that is not UTF-8 is carried as is in
//     the structured result (JSON replaces invalid bytes).
//   - MIME types come from content sniffing plus a small extension table;
//     they are a hint, not a verdict.
//   - Stdin is empty; there is no way to pass bytes other than as inputs.
package coderun
