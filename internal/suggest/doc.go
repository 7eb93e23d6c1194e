// Package suggest turns what ringfence refused into the smallest change of
// a policy file that would have allowed it (`ringfence policy suggest`).
//
// Read takes the records — `ringfence run --json` results or an audit
// trail (internal/audit) — and finds each refusal: a path (from a
// backend's violation, or a file tool's denied-by-policy /
// outside-write-root outcome), a host (the domains proxy's refusals, or a
// lookup refused with the network off) and a command (run_command refused
// by the command table, or sent to a person when there was none).
// Suggest decides the change for each, against the file's own text:
//
//   - a path: an [[entry]] one step up from what the file grants there
//     (deny → read → write; a read-only file system says write), on the
//     path itself, or on its directory when the file does not exist yet
//     (creating a file needs its directory); an entry already at that path
//     has its access changed instead of being shadowed by a second one;
//   - a host: host:port (the narrowest rule the proxy reads) added to
//     [network] allow, and the mode set to domains when it was not;
//   - a command: an [[exec.rule]] allowing the literal words of each
//     refused simple command in the line, kept only if the whole line is
//     then allowed.
//
// The edited text is parsed again (policyfile.Parse) and each change's
// effect checked on it — access at the path, the proxy's decision for the
// host, the classifier's for the command — so a change that would not do
// what it says is never offered for writing (the plan falls back to lines
// for the person to add). Diff renders the change as a unified diff. A
// file that does not exist yet starts from policyfile.InitTemplate: a
// trusted workspace file replaces the user's policy, and one holding only
// the change would drop every default protection.
//
// # Threat model
//
// The records are hostile: paths, hosts and command lines in them were
// chosen by the sandboxed command or the model. Every string put in the
// file is a TOML basic string built here (quotes, backslashes and control
// characters escaped; non-UTF-8 refused), every comment has its control
// characters replaced, and the result is parsed before use, so a record
// cannot add a key, a table or a line. Nothing is ever granted silently
// that reaches a secret or runs later: a credential store
// (policy.CredentialNames under home), or a directory holding one that no
// deeper entry keeps (~/.cargo, ~/.local, home under a deny baseline), a protected name under the
// workspace or home (git hooks and config, shell start-up files, the
// policy file), write access over home, a parent of the workspace or a
// system directory, a private address, and a privileged, critical or
// credential command are Sensitive — listed with why, and left out of the
// file unless Input.IncludeSensitive. ringfence's own config directory
// (the user's policy, the trust store) is never proposed. A changed
// workspace file is no longer trusted: the person reads it and trusts it
// again (the CLI says so) before it widens anything.
//
// # Gaps
//
//   - The change is to one file. A refusal caused by a flag (--read-only,
//     --deny, --allow-domain, which replaces the file's allow list), a
//     built-in protection or another policy file is reported as not
//     answered by the file, not fixed.
//   - The check after an edit is of the file's own grant, not of the
//     whole resolved policy: a protected name (git hooks, start-up files),
//     which ringfence also guards by name at any depth, may stay refused
//     even when a sensitive entry for it is included.
//   - A prefix rule allows the refused words followed by any further
//     arguments (execpolicy has no exact rule); the risk line says so. A
//     word that is not literal ($VAR, a glob, a substitution) ends the
//     prefix, and a command nested in another (sh -c inside a line) is not
//     answered.
//   - A path whose access the record does not say (EPERM, EACCES) gets one
//     step up; a write refused under a denied path needs two rounds.
//   - Under the linux backend a denied path is hidden, not refused: a
//     command sees "No such file", no violation is recorded, and nothing
//     is suggested. Relative paths in a backend's message are taken from
//     Input.Cwd (the CLI: the current directory, as run uses it).
//   - The TOML editor reads the layout `ringfence policy init` writes
//     (tables, one key per line, arrays over lines); inline tables for
//     [network] or entries, dotted top-level keys and multi-line strings
//     leave the edit to the person.
package suggest
