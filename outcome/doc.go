// Package outcome decides what a confined command or a file operation
// turned out to be, and says it to the model in exactly one place.
//
// It is pure: it reads evidence (exit status, stderr, the status channel,
// the supervisor's own reasons for stopping a run) and never touches the
// kernel, so every decision here is table-tested and fuzzed without root.
//
// # Classifying a run
//
// ClassifyExec orders the evidence by how much it can be trusted:
//
//  1. The supervisor's own facts — it aborted the run, the timeout fired, a
//     resource limit was breached. These are observations; nothing the
//     command printed can change them.
//  2. Runner failure. A denial means confinement worked; a runner failure
//     means the sandbox never ran the command at all. Telling the second as
//     the first sends a model off rewriting a correct command, so it is
//     decided first — and from the status channel whenever the backend has
//     one. The runner writes that channel on a descriptor the command never
//     holds: a Started record proves the command ran, whatever its stderr
//     says, so a command that prints a backend's failure text and exits with
//     its exit code is still the command's own failure. A Failed record is a
//     runner failure (except a missing or non-executable program, which is
//     the command's own mistake); a channel that closes silent means the
//     runner died before the command could start. Only a backend with no
//     channel falls back to its own stderr rules (informational lines
//     dropped, excluded signatures carving out an ordinary missing program).
//  3. A seccomp kill (SIGSYS): deterministic, no text needed.
//  4. The selected backend's own denial dialect, matched per stderr line,
//     case-insensitively (ASCII case). There is no cross-backend union of signatures: a
//     union would claim, under one backend, denials only another produces
//     ("Read-only file system" means something else where nothing is
//     mounted read-only). Each match becomes a Violation (backend, reason,
//     path when the message names one, a bounded one-line snippet).
//  5. The network mode's refusals: a failed name lookup or connection, in
//     the words of curl, git, Go, Python, pip, Node, npm, ssh or wget
//     (network.go lists the shapes, captured from the real tools inside the
//     sandbox), is a denial with a network-denied violation only when
//     Evidence.Network says the mode denied something the command could
//     otherwise reach: under deny every such failure is the sandbox's
//     (there is no usable interface); under loopback only a lookup of a
//     name other than localhost, an unreachable network, or a connection
//     to a non-loopback target — a refused loopback connection is a server
//     not listening, the command's own. Under allow-all, domains, or a
//     backend that isolated nothing, never. A line counted as a network
//     refusal is not also counted by the backend's file dialect.
//  6. The exit code: zero is success, anything else is the command's own
//     failure. A program that could not be run exits 126 (not executable)
//     or 127 (not found), whatever the runner itself exited with.
//
// # Narration
//
// Narrate turns any Outcome into one short, deterministic paragraph: what
// happened, then what to do instead. It promises never to say:
//   - file contents or command text: no Outcome field holds either, and
//     stderr reaches it only as bounded violation snippets;
//   - the configured host root (Context.HostRoot): every field is scrubbed
//     to the mount path first, and whatever still spells the root in the
//     finished text (two fields joined so they rebuild it) is redacted. A
//     mount path that itself contains the root text ("/workspace" for a
//     root of "/work") is not a leak and is left alone. The root is
//     rewritten only where it stands as a whole path (ReplacePath): a
//     sibling such as "/tmp/ws-backup" for a root of "/tmp/ws" is another
//     directory and keeps its name in the fields (rewriting it would
//     invent "/workspace-backup"); narration, the safety net, withholds
//     any remaining text spelling the root ("[withheld]-backup"). Where
//     the backend mounts the workspace at the mount path, the command's
//     own paths are already true and scrubbing rarely has anything to do.
//
// Strings a model (or a command) supplied — paths, patterns, notes — are
// quoted, cut to a bound, and have control characters, bidirectional
// overrides and invalid UTF-8 escaped, so they cannot end the sentence
// they sit in or forge a line. Golden files pin the text of every kind,
// and a test fails if a Kind is added without a narrator and a golden.
//
// # One narrator
//
// Every sentence a model reads is written here. Besides Narrate, the words
// the tools put around content come from tooltext.go and tooltext_exec.go
// (a write's answer, a binary or empty file, paging, a run's exit and
// streams, run_code's outputs listing, session processes, why a call ran
// one-shot, an approval's note), pinned by testdata/tooltext;
// denied-by-policy with Axis AxisExec is a command the classification
// refuses outright. TestNoModelTextOutsideOutcome parses the packages that
// build model-facing results (tools, internal/mcp, internal/coderun, the
// root's result.go and network_result.go) and fails on any string literal
// with three words in a row outside the exempt places it lists (errors and
// logs, published tool definitions and schema docs, person-facing gate
// text, Detail data this package frames); TestModelTextRuleCatches proves
// the rule finds a planted sentence. A run's outcome is narrated once, by
// the facade from the call's own policy (ExecResult.Narration), and the
// tools show that narration rather than narrate the outcome again.
//
// Error is the one error type that carries an outcome (the workspace's,
// the tools' and the code runner's refusals); Of reads it. Breach and
// Usage are the supervisor's own vocabulary (internal/run reports them).
//
// # Audience
//
// The same outcome is told to two readers. A model calling tools (MCP, the
// Go tools API; Context.Audience's zero value) is advised in the words of
// its tool arguments — "timeout_seconds", "ask the user"; a person at
// `ringfence run` (AudienceCLI) in ringfence's flags — "--timeout",
// "--memory", "--write PATH". Only the advice differs, never the facts,
// and it comes from one table (audience.go) that a test walks: the CLI's
// words never name a tool argument, the model's never a flag. Sizes are
// binary units rounded down ("50 MiB", "at least 514.9 MiB"), never a raw
// byte count; durations are "30 seconds" beside timeout_seconds and "2m30s"
// (the syntax --timeout takes) on the command line. Kinds only the MCP
// tools produce (file operations, the approval gate, invalid arguments,
// run_code's missing interpreter) are worded for the model alone.
//
// Connections the domains network's proxy refused (Evidence.Network) are
// facts from the supervisor, not stderr text: any one makes the run
// denied, each is a violation with reason "network-blocked", and the
// sandbox-violation narration then says what was blocked and why, with the
// allowed domains (Outcome.Blocked, Outcome.Allowed) — the host names are
// the proxy's strictly parsed ones, still escaped here.
//
// # Known gaps
//
//   - A command that is refused one connection and succeeds another way
//     (a fallback mirror) is still reported denied: the refusal happened.
//   - Without a status channel, runner failure is inferred from stderr
//     text, which a command can forge; every backend ringfence ships has a
//     channel, so this path serves only third-party backends.
//   - Denial matching is text matching: a command's own "Permission
//     denied" (a mode-000 file in the workspace) is reported as a sandbox
//     violation under a backend whose dialect includes that text.
//   - Paths are extracted from the common message shapes only; an unusual
//     shape yields a violation with no path, never a wrong guess on purpose.
//   - A host root of "/" or a relative one cannot be scrubbed and is not.
//   - Network refusals are text matching too: a command can print a
//     resolver's words and be told the network refused it (it only
//     misleads itself), and a tool with an unlisted wording is reported as
//     its own failure. Under Landlock's loopback mode every IP socket is
//     refused, loopback included, yet a loopback target is not counted.
//   - The model-text test sees literals only: a sentence assembled word by
//     word from variables, or a two-word phrase, passes it. Tool
//     descriptions and the MCP server's instructions are published text
//     and stay with their definitions (golden in internal/mcp).
package outcome
