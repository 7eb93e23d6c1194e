// Package tools turns a ringfence sandbox into the tools an agent calls —
// run_command, run_code, read_file, write_file, edit_file, list_files,
// glob_files, grep_files, read_media, and with Options.Processes
// write_stdin, list_processes and kill_process — usable from Go without MCP:
//
//	set := tools.New(sandbox, tools.Options{Gate: myGate})
//	res := set.Call(ctx, "read_file", json.RawMessage(`{"path":"src/a.go"}`))
//
// One Set is one session: it keeps that session's approvals.
//
// # What each call declares
//
// Permissions computes, from a call's actual arguments and before anything
// runs, exactly what the call does, so a host's permission policy can grant
// a workspace and a few commands and nothing else:
//
//   - run_command: shell:<program> for every program the command line runs,
//     read from execpolicy's classification (its leaves, after unwrapping
//     shells, pipelines, chains, substitutions and wrappers such as sudo or
//     timeout): `ls | grep x && curl y` declares shell:ls, shell:grep,
//     shell:curl. Plus network:* when a part is classified network or
//     package-install.
//   - run_code: shell:<interpreter> (python3, node, bash, sh), network:*
//     when the interpreter's classification reaches the network (as for
//     run_command), filesystem:read <model path> for each from_workspace
//     input, and filesystem:write <mount>/outputs (the directory
//     large outputs are saved to, coderun.DefaultSaveLargeTo).
//   - read_file, read_media: filesystem:read <model path>.
//   - write_file, edit_file: filesystem:write <model path>.
//   - list_files, grep_files: filesystem:read <the directory (or file)>;
//     glob_files: the directory its walk starts at (the base narrowed by the
//     pattern's fixed leading directories: "src/**/*.go" declares
//     /workspace/src).
//
// Model paths are under the mount path (/workspace by default). A path the
// model-path rule refuses declares nothing: Permissions returns an error
// whose outcome (outcome.Of) is path-rejected, and Call fails the same way.
//
// # Threat model
//
// Every argument is model-authored and untrusted. Decoding is exact: one
// JSON object of at most MaxArgBytes, no field the schema does not name
// (matched case-sensitively), required fields present and not null, each
// value of its type and within the bounds the schema advertises — the
// decoder enforces the very schema the definition publishes. Anything else
// is invalid-arguments with a detail naming the field, never its value.
// Nothing panics on any input (FuzzCall).
//
// Approvals come only from the Gate, a person's decision. A call can widen
// nothing by itself: an approval is minted with policy.Approve and passed
// as policy.Request.Approval (single-call for ApproveOnce, spent by the run
// it was minted for; session-scoped and bound to Options.SessionID for
// ApproveSession), never read from a payload. The Gate is asked when:
//
//   - run_command (or run_code, by its interpreter's classification) is
//     classified ask-approval. A command classified deny is
//     refused without asking (denied-by-policy, axis "exec"). When a part
//     reaches the network (network or package-install), the approval
//     widens the network to allow-all for that call; otherwise it widens
//     nothing and records the decision.
//   - write_file or edit_file names a path the policy does not let it
//     write (outside the writable roots, or a read-only path inside one,
//     such as .git/hooks). The approval is a write entry for exactly that
//     path, resolved into a policy, and the write is done through a
//     workspace over that policy (ringfence.Local.WorkspaceFor), so every
//     other check (links, hard links, types) still applies. A hard-linked
//     target, or a refused parent directory, is never asked about.
//
// Under the domains network the proxy decides every connection, so
// approving a command that uses the network grants no network at all (no
// allow-all); with asking on (policy Network.Ask), each connection to a
// host no rule names is put to the gate while the proxy holds it
// (network_ask.go): one question at a time, and the session remembers
// approve-session and decline answers per host:port.
//
// The gate is bounded by Options.GateTimeout (gate-unavailable, reason
// "timeout"); an error or a panic in it is gate-unavailable ("error"); a
// gate whose client can never approve (ErrNoApprover) is gate-unavailable
// ("no-approver"), narrated as final — the model is told to do the work
// another way, not to retry; a
// decline is gate-declined with the person's note. With no Gate at all,
// run_command's ask-approval is gate-unavailable ("no-gate"), while a
// refused write keeps the policy's own outcome (outside-write-root or
// denied-by-policy), which tells the model more.
//
// Session approvals are keyed: a command by (program, capability) for each
// part that asks — an approval of curl as network does not cover curl
// reading a secret, and each key's approval carries the network only if
// its own capability needs it, so approving `curl x | tool` for the session
// does not give `tool` alone the network later; a write by its exact model
// path. A later call is let through without asking only when every key it
// needs is covered.
//
// # What a client sees before calling
//
// Each Definition has a title, Hints (read-only, destructive, idempotent,
// open-world; hints.go — they may overstate, never understate) and the Go
// type of its Data. Every parameter is snake_case (SnakeCase); a field the
// schema does not name is refused, and when it is the camelCase spelling
// of one that exists (maxBytes, timeoutSeconds, inWorkspace,
// fromWorkspace — the names before issue 18) the refusal names the field
// to use: old names are never aliases.
//
// # What the model sees
//
// Result.Text is the content (numbered lines, a listing, matches, command
// output) followed by the narration from package outcome when the outcome
// is not OK; every sentence in it comes from package outcome. A run's
// outcome is narrated once, by the facade from the call's own policy (an
// approval included), and that narration is shown; the Set narrates only
// the outcomes it makes itself (a refused argument, a file operation, a
// gate's answer) in the session's context. It never holds the host root: outcomes are scrubbed by the
// outcome package, and command output — where the host root appears
// whenever a backend keeps host paths (the linux backend binds the root at
// its own path, so `pwd` prints it) — is rewritten to the mount path with
// the same rewriting, in the text and in Result.Data. File contents shown
// (read_file, grep_files) are rewritten the same way. One exception: a
// path-rejected path is the model's own argument and is shown as it gave
// it (outcome/given.go) — rewriting it named a path the model never wrote
// and answered whether a guessed path was the host root. The person's
// note with an approval is said after the result and set as the
// outcome's Note (notes.go), as a decline's note is. The Gate's Summary,
// which may show the command line, goes to the person only.
//
// read_file's text is the numbered lines, sent once: Result.Data (ReadData)
// holds the range and totals (first line, lines shown, size, whether more
// follow), never the text again, so a large file is encoded once. Its byte
// bound is Options.MaxReadBytes (`ringfence mcp --max-read-bytes`); a
// larger file is refused with its size, never cut, and read in ranges
// (offset, limit).
//
// glob_files and grep_files search the whole scope every time (no read
// budget) and return one page: as many results as fit the workspace's page
// of output bytes (workspace.DefaultMaxPageBytes), or max_results /
// max_matches when the call sets them. When more remain the text says so
// and gives next_cursor; the same call with cursor set returns the next
// page. A cursor (cursor.go) is the page's end position sealed with an
// HMAC under a per-process random key, bound to the tool and every other
// argument: an edited, made-up or moved cursor (another path, pattern,
// page size, tool) is invalid-arguments before any search
// (TestCursorRefused). It could not widen anything even if forged: the
// scope and policy come from the call's own arguments, and the workspace
// only skips results before the position (workspace.TestCursorOnlyHides).
//
// run_command's text: the exit code (or signal, or kind), then stdout and
// stderr, each cut in the middle past Options.MaxOutputBytes with the
// counts said, and a note when the sandbox itself cut a stream at capture.
//
// run_code (run_code*.go, over internal/coderun) runs a short program in
// the same sandbox as run_command: the interpreter is looked up first
// (missing-program before any question), the interpreter's command is
// classified and gated exactly as run_command's (the code itself goes to
// the person's Summary only), inputs are staged read-only under inputs/
// (a from_workspace input passes the model-path rule and the policy's
// read check), and the code runs in a fresh directory deleted afterwards
// (or the workspace root with in_workspace). Its text is run_command's
// text, then the outputs/ listing: every entry with size, MIME type and
// SHA-256, links and special files refused (never followed or read), the
// text of small text files cut like a stream (up to four streams' worth
// in all), large files saved under the workspace when it is writable; the
// first inline image is Result.Media. Data is CodeResult.
//
// # Adding a tool
//
// A tool is one file: an argument struct, a schema (obj, str, integer,
// boolean, array — the decoder enforces exactly these bounds), a
// permissions function and a run function in a spec[A], registered from
// the file's init (see registry.go); run_code (run_code*.go) is built this
// way and shares approveExec, execResult and the session keys with
// run_command. Every sentence the model reads comes from package outcome
// (TestNoModelTextOutsideOutcome).
//
// # Sessions and processes (Options.Processes; run_command_session.go, processes.go)
//
// With Options.Processes every run_command runs in one long-lived confined
// environment per Set (ringfence.Session, made on first use, ended by
// Set.Close; the MCP server closes a session's Set as soon as its
// connection closes): /tmp, the loopback network and background processes
// carry between calls (TestRunCommandRunsInTheSession), and each result
// says where it ran (ExecResult.Session). A foreground call gets its stdin
// then end of file and its time limit, as one-shot. With background or
// yield_ms the call returns while the command runs on, with a process_id;
// write_stdin types to it (and resizes its terminal: tty, rows, cols —
// TestRunCommandTerminalResize), list_processes and kill_process reach it.
// Process ids are per Set: another Set can neither list, write to nor
// signal them, and its commands run in another network namespace
// (TestProcessToolsSessionsAreIsolated). A command is read and gated
// exactly as always; one whose approval widens the policy (the network)
// never runs in the session's narrower environment: a foreground call
// runs one-shot and says why (TestRunCommandWidenedRunsOneShot), one that
// asked to stay is refused (TestProcessToolsApprovalWideningIsRefused).
// The session's refusal previews the policy, so the call's single-call
// approval is still unspent for the one-shot run. Where a session cannot
// be had (a backend without sessions), a foreground call runs one-shot
// and says so; under a domains network with a person to ask, foreground
// calls run one-shot, since only a one-shot run can ask about a host
// mid-run; under a CPU-time limit, which a session does not enforce,
// foreground calls run one-shot and background ones are refused
// (TestRunCommandCPULimitRunsOneShot). Limits: MaxSessionProcesses
// running at once (past it a call that stays is over-budget, a foreground
// one runs one-shot), SessionOutputKept recent bytes per stream (older
// output is dropped and counted), MaxYield per call.
//
// # Known gaps
//
//   - A gate that ignores its context is abandoned at the timeout, but its
//     goroutine lives until it returns.
//   - Session approvals never expire within the Set's life; a deployment
//     that wants expiry closes the session.
//   - A write approval covers the named path; a name that is a link to
//     another file inside the workspace is still refused at its real
//     location (conservative, not wrong).
//   - Command output is scrubbed of the host root only; the private temp
//     dir's host path may appear where a backend shows it.
//   - run_command's stdin is a string (text), not bytes.
//   - A note given to a network question asked mid-command (network_ask.go)
//     reaches the model only if the proxy asks under the call's context.
//   - A cursor does not survive the server: one from an earlier process is
//     refused and the model searches again. Pages are cut from a fresh
//     search each time, so a tree changed between pages shows the change
//     (nothing is shown twice or skipped for files that stay put).
//   - grep_files' structured Lines repeat its text (glob_files' Paths
//     likewise); only read_file's text is sent once.
//   - A call whose approval widens the network runs one-shot, not in a
//     sibling session of that policy: a background server that needs the
//     network cannot be left running (refused, with the reason).
//   - A foreground command's background children stay in the session (by
//     design), and their output to an inherited stream lands in the ring
//     of the call that started them, up to 200 ms of which delays its end.
//   - Because shown file contents are rewritten, a file that spells the
//     host root is shown with /workspace there; an edit_file whose
//     old_string copies that text will not match the file.
package tools
