// Package mcp is ringfence's MCP adapter: the tools of package tools served
// over the Model Context Protocol (the official Go SDK), on stdio
// (ServeStdio) or the streamable HTTP transport (HTTPHandler).
//
// # What it guarantees
//
//   - Every tool is served with the tool layer's own input schema, and
//     every call answers with the model-facing text, the outcome as
//     structured content ({"outcome": {...}, "data": ...}) and isError from
//     the result. read_media's bytes go out as image content, or as an
//     embedded blob (a PDF) named by its model path.
//   - A session is a connection (stdio) or an MCP session (HTTP). Each gets
//     its own tools.Set on its first call, so approvals never cross
//     sessions; the sandbox (and its backend) is shared. Concurrent calls in
//     one session run concurrently.
//   - Approvals come from a person only: the gate asks through MCP
//     elicitation (a form: approve once, approve for the session, decline,
//     and a note). Anything other than an accepted known choice declines. A
//     client that did not declare elicitation is gate-unavailable at once;
//     one that does not answer within the gate timeout is gate-unavailable
//     ("timeout"). Tool arguments never reach the gate: the tool layer's
//     decoder refuses any field its schema does not name.
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
//   - Over HTTP, CheckListen refuses a non-loopback address without a
//     bearer token; with one, every request must carry it (compared in
//     constant time over its SHA-256) or gets 401 before the MCP layer.
//     The SDK's DNS-rebinding protection stays on for loopback.
//   - With Config.Audit, every call is recorded (package audit).
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
// HTTP without a token trusts every local user of the machine.
//
// # Known gaps
//
//   - Protocol 2026-07-28 (stateless sessions, multi round-trip input
//     requests) is not served: clients fall back to 2025-11-25, where a
//     session is a connection and elicitation is a server request.
//   - Session state is forgotten when the SDK drops a session, checked each
//     time a new session starts; an idle HTTP session keeps its approvals
//     until it ends (no idle timeout is set).
//   - There is no rate limit: a client may run as many commands at once as
//     the host allows (the per-command limits still apply to each).
//   - TLS is not served: put a TLS proxy in front of a non-loopback
//     listener, or the bearer token travels in clear.
package mcp
