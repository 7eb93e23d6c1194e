// Package files serves the Filesystem & Runtime REST API of
// kubernetes-sigs/agent-sandbox's runtime standard (KEP-539.2, "sandboxd":
// packages/sandboxd/spec/filesystem/v1/filesystem.yaml) over a ringfence
// workspace: GET/HEAD/PUT/DELETE /v1/files/{path}, GET /v1/health and
// GET /v1/metadata, for `ringfence serve`'s REST port.
//
// # Contract
//
// Status codes, JSON shapes and parameters are the spec's: a file GET is
// application/octet-stream (Range and conditional requests as net/http
// serves them), a directory GET a DirectoryListing sorted by name; PUT is
// atomic (temp file, fsync, rename), makes parents, takes mode
// (^0[0-7]{3}$, default 0644) and a raw or multipart ("file" part) body,
// answers 204; DELETE answers 204, 409 CONFLICT for a non-empty directory
// without recursive=true and for the root itself (recursive=true empties
// it), 404 for what is not there; refusals are 403 PERMISSION_DENIED;
// errors are {"code","message"}. /v1/health is 200 {"status":"ok",
// "uptime_seconds"} until SetShuttingDown, then 503 UNAVAILABLE.
// /v1/metadata is {"env":{…}} of the variables with the prefix (default
// SANDBOX_), read once at start.
//
// Additions a standard client ignores: every /v1/files answer carries the
// fence's outcome as JSON in the Ringfence-Outcome header (kind, model
// path, reason — never contents, never the host root), and an error's
// message is the outcome's narration. An upload over the bound is 413
// RESOURCE_EXHAUSTED (the spec names no code for it).
//
// # Threat model
//
// The client is the agent (or whoever reaches the port through the
// sandbox-router): it names any path, any body, any query. The tree is
// the workspace, which confined commands write between calls: they plant
// links, hard links, fifos and protected names, and swap directories for
// links while a call runs. This server runs outside every confinement, so
// a file operation that ignored the policy would be an escape no backend
// sees. Every operation therefore goes through internal/workspace: paths
// by pathrule (absolute paths outside the mount path, "..", NUL,
// backslashes refused), lookups beneath the root with openat2
// (RESOLVE_BENEATH|RESOLVE_NO_MAGICLINKS) or the component walk, the
// policy at the real location (denied paths 403, protected paths and
// names at any depth read-only), fifos and devices never opened, writes
// to a file with another hard link refused, removals that never follow a
// link and check every name of a tree before removing any.
//
// Beyond the fence: a GET of a file with more than one hard link is
// refused unless AllowHardLinkReads (its other name may be outside the
// root, where no path rule reaches); an upload is bounded
// (MaxUploadBytes; a declared length over it is refused before a byte is
// read, a body that runs over is cut and its temp file removed; a body
// that sends nothing for UploadIdle, 30s by default, is cut too); a
// listing is bounded (MaxListEntries, said in the header); /v1/metadata
// withholds every name policy.CredentialName flags, every name with one of
// the reference daemon's markers (TOKEN, SECRET, KEY, AUTH, CERT, …) or of
// ours (JWT, SESSION, HMAC, SALT, DSN, …), every value
// policy.CredentialValue flags, and every value shaped like a secret
// (a JWT, "Password=", "Bearer ", "Basic ", a slack webhook).
//
// # Differences from the reference daemon, on purpose
//
//   - An absolute {path} is accepted under the mount path (/workspace/…) or
//     the host root; any other ("/src/x", "/etc/passwd") is 403, where the
//     reference reads it as relative to the root. "/" alone is the root.
//   - DirectoryListing.path is the model path ("/workspace/src", as the
//     spec's example shows), which PUT and GET accept back.
//   - A fifo, socket or device is 403 on GET (the reference blocks on a
//     fifo); a listing shows them as "file".
//   - Links are listed as what they lead to when that stays inside and is
//     readable, and left out otherwise (the reference does the same).
//
// # Known gaps
//
//   - Reads through a hard link are refused, not judged: a hard link made
//     inside the root by the workload itself (git clone --local, a package
//     manager's store) is refused too unless AllowHardLinkReads.
//   - A tree removal that meets a name planted between its check pass and
//     its removal pass stops there, with what came before it removed.
//   - The metadata filter is a heuristic over names and value shapes; the
//     operator must still not put secrets under the prefix.
//   - Uploads are not deduplicated or rate limited; the bound is per call.
//     The idle bound cuts a stalled body, not one that trickles a byte
//     inside each UploadIdle, and concurrent uploads are not counted.
package files
