// Package audit is ringfence's audit trail: one JSON line per tool call, so
// a person can backtrack a wrong answer to the exact call that caused it,
// and read it back as a table (`ringfence audit FILE`), as one
// self-contained page (`--html`, internal/auditview), or as the refusals
// `ringfence policy suggest` turns into a policy change (internal/suggest).
//
// # What a record holds
//
// The time (RFC 3339, milliseconds, UTC), the session's label, the tool, the
// arguments, the resolved policy's one-line summary, the command's
// classification (capability, outcome, programs), the permissions the call
// declared, what the approval gate did, the backend and what it enforced,
// the outcome kind (with its reason or path), the duration and the
// violations the backend reported.
//
// Arguments are recorded as the model sent them, except that nothing that
// can be file contents is written: write_file's content, edit_file's
// old_string/new_string, run_command's stdin, and any argument this package
// does not know, become {"bytes": n, "sha256": "…"}, which lets a person
// prove which content was sent without the trail holding it. Paths (model
// paths, as sent), patterns, numbers and booleans are kept. run_command's
// command line (and argv) is kept — it is not file contents and the person
// auditing needs it — but cut at 1 KiB (MaxText), with the cut said; every
// other kept string is cut the same way.
//
// The session is recorded as a label (SessionLabel: HMAC-SHA256 of the id
// under a key that lives only in the writing process), never as the id:
// over HTTP a session id, with the bearer token, acts in a session, and the
// trail may be readable to the sandboxed commands it records. Labels group
// one process's calls by session; they cannot be reversed, and the same id
// gets another label in another process.
//
// # Threat model
//
// The arguments are model-authored and hostile. A record is built with
// encoding/json, so no argument can break the line framing or forge a
// field; an argument that is not a JSON object is recorded only by its
// size and digest. The trail is written by the server the model talks to,
// so it is as trustworthy as that process and no more: a model cannot
// write to it, but anyone who can write the file can. Read skips nothing
// silently: a line that does not decode is an error naming its line.
//
// # Known gaps
//
//   - Records are appended with one write each and flushed by the OS; a
//     crash may lose the last records (Close flushes and syncs).
//   - Command lines may hold secrets a person typed into them; the trail
//     is written 0600 for that reason, and is not rotated.
//   - The policy summary is the session's defaults, not the per-call
//     policy an approval widened (the approval itself is recorded).
package audit
