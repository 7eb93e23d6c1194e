// Package mcp is ringfence's MCP adapter: the tools of package tools served
// over the Model Context Protocol (the official Go SDK), on stdio
// (ServeStdio) or the streamable HTTP transport (HTTPHandler).
//
// # What it guarantees
//
//   - Every tool is served with the tool layer's own input schema, its
//     title, annotations from its hints (readOnlyHint, destructiveHint,
//     idempotentHint, openWorldHint — never understating: commands are
//     open-world because an approved network command gets the network),
//     and an output schema; the server sends instructions (the workspace,
//     paths, approvals). Every call answers with the model-facing text, the
//     outcome as structured content ({"outcome": {...}, "data": ...}) and
//     isError from the result. read_media's bytes go out as image content,
//     or as an embedded blob (a PDF) named by its model path.
//   - One naming style: every parameter (the tool layer's) and every field
//     of the structured content is snake_case. The content's types are
//     shared with the CLI's --json (camelCase), so this layer renames their
//     field names (schema.go) — object keys only, and no type reachable
//     from the content is a map or an interface, so no data is renamed
//     (tested). The output schemas are built from the same types and
//     renamed the same way; every test call validates against them, as
//     the TypeScript SDK client does. Old camelCase parameter names are
//     refused with the new name, never aliased.
//   - The approval form is a titled single-select (oneOf of const + title,
//     decline by default; not the deprecated enumNames) and a note. The
//     note reaches the model on approval (tools says it after the result,
//     and in outcome.note) and on decline.
//   - A session is a connection (stdio) or an MCP session (HTTP). Each gets
//     its own tools.Set on its first call, so approvals never cross
//     sessions; the sandbox (and its backend) is shared. Concurrent calls in
//     one session run concurrently.
//   - Approvals come from a person only: the gate asks through MCP
//     elicitation (a form: approve once, approve for the session, decline,
//     and a note). Anything other than an accepted known choice declines. A
//     client that did not declare elicitation is gate-unavailable at once
//     ("no-approver", narrated as final: the policy decided, do it another
//     way — never "retry later"); one that does not answer within the gate
//     timeout is gate-unavailable ("timeout"). Tool arguments never reach
//     the gate: the tool layer's decoder refuses any field its schema does
//     not name.
//   - Approvals are never granted by the process that asked. Elicitation
//     goes back to the client that made the call, so the gate is only as
//     trustworthy as that client. On stdio (and in memory) the client
//     started the server and is the person's. Over HTTP a session is asked
//     only if it was opened with an approver Credential (the person's
//     token, held by the person's client); any other session has no gate —
//     what needs approval is not run ("no-gate"). A session is bound to the
//     credential that opened it (the SDK refuses another credential's
//     requests with 403, and handle checks it again), so an agent cannot
//     borrow an approver's session nor answer its elicitations.
//   - Bad input never takes the server down. On stdio (LineTransport) a
//     line that is not JSON gets a parse error (-32700), one that is not a
//     JSON-RPC message or is longer than DefaultMaxLine gets
//     invalid-request (-32600), and the session goes on. Unknown tools and
//     methods are protocol errors; wrong or oversized arguments are tool
//     errors (invalid-arguments, bounded by tools.Options.MaxArgBytes);
//     HTTP bodies are bounded to DefaultMaxLine.
//   - A client that goes away mid-call cancels the call's context, which
//     kills the command's whole tree: a closed stdio pipe, a cancel
//     notification, and over HTTP a dropped connection (the call is tied to
//     the HTTP request that carried it, which the SDK does not do before
//     protocol 2026-07-28) or a DELETE ending the session.
//   - HTTP is never served without credentials: HTTPHandler refuses an
//     empty list, a token under MinTokenLen, and two credentials with one
//     token. Every request must carry one (compared in constant time over
//     SHA-256 digests, every credential checked) or gets 401 before the MCP
//     layer; a session id alone is nothing. CheckListen refuses a
//     non-loopback address unless the token was given explicitly (the CLI
//     generates one for loopback only, into a 0600 file).
//   - Browsers cannot drive it: a Host that is not a loopback name or
//     address (or an allowed one) is refused 403 (DNS rebinding), and so is
//     any Origin but the server's own ("http://" + that Host) or an allowed
//     one — including "null" and a repeated header. The SDK's own
//     rebinding check stays on as well.
//   - With Config.Audit, every call is recorded (package audit), under a
//     per-process HMAC label of the session, never the session id.
//
// # Threat model
//
// The client and the model behind it are hostile: they may send malformed
// or oversized JSON-RPC, call unknown tools, send wrong types, try to pass
// an approval in the arguments or in _meta, flood concurrent calls, and
// disconnect mid-call. The person answering elicitations is trusted — but
// the elicitation answer travels through the client, so a client that lies
// on the person's behalf can approve what its person would not: an MCP
// client is trusted to the extent that it shows the person the question.
// Over HTTP, anyone holding a token — another local user, a web page, a
// command the server itself ran with network access — may try to be both
// the asker and the approver; hence tokens always, approvals only for the
// approver credential, and the Host/Origin guard. A sandboxed command
// cannot reach the server under network deny or loopback (its own network
// namespace; tested as root and as nobody); under allow-all it can, and
// only the token stops it — the CLI denies the token files to the sandbox.
//
// # Known gaps
//
//   - Annotations are listed once per server, so they assume a session
//     may be asked: an HTTP session without the approver credential (no
//     gate) still sees run_command as open-world under deny.
//   - The Inspector CLI tested is v1 (v2 needs node 22); its CLI mode
//     declares no elicitation, so only the TypeScript SDK client tests
//     the approval form end to end with a real client.
//   - Protocol 2026-07-28 (stateless sessions, multi round-trip input
//     requests) is not served: clients fall back to 2025-11-25, where a
//     session is a connection and elicitation is a server request.
//   - Session state — its approvals and its sandbox session with every
//     background process — ends as soon as the session's connection
//     closes (Server.watch; TestProcessToolsPerMCPSession), and is also
//     forgotten at the next initialisation if the SDK dropped it; an idle
//     HTTP session keeps its approvals until it ends (no idle timeout is
//     set), its sandbox session until 30 idle minutes. A call that races
//     the close makes a fresh state whose own watch ends it at once.
//   - There is no rate limit: a client may run as many commands at once as
//     the host allows (the per-command limits still apply to each).
//   - TLS is not served: put a TLS proxy in front of a non-loopback
//     listener, or the bearer token travels in clear.
//   - Tokens do not expire and cannot be rotated while the server runs;
//     a leaked token is good until restart (a generated one dies with the
//     process).
//   - The approver credential trusts its client to show the person each
//     question; a person who pastes the approver token into an agent's
//     configuration gives that agent the approval.
//   - Under allow-all a sandboxed command can still reach the server's
//     port (only the token refuses it) and any other loopback service.
package mcp
