package files

// The JSON shapes of the Filesystem & Runtime REST API
// (kubernetes-sigs/agent-sandbox packages/sandboxd/spec/filesystem/v1/
// filesystem.yaml), written from the spec. Field names and omissions are
// the wire contract; tests pin them.

// FileEntry is one row of a DirectoryListing.
type FileEntry struct {
	Name       string `json:"name"`
	Size       int64  `json:"size"`
	Type       string `json:"type"` // "file" or "directory"
	ModifiedAt string `json:"modified_at"`
	Mode       string `json:"mode,omitempty"` // octal permission bits, "0644"
}

// DirectoryListing answers GET on a directory.
type DirectoryListing struct {
	Path    string      `json:"path"`
	Entries []FileEntry `json:"entries"`
}

// HealthResponse answers GET /v1/health while serving.
type HealthResponse struct {
	Status        string `json:"status"`
	UptimeSeconds int64  `json:"uptime_seconds"`
}

// MetadataResponse answers GET /v1/metadata.
type MetadataResponse struct {
	Env map[string]string `json:"env"`
}

// Error is the body of every non-2xx answer of the spec's endpoints.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// The error codes the spec names (gRPC code names), and the one it does
// not: RESOURCE_EXHAUSTED for an upload over the bound.
const (
	CodeInvalidArgument   = "INVALID_ARGUMENT"
	CodePermissionDenied  = "PERMISSION_DENIED"
	CodeNotFound          = "NOT_FOUND"
	CodeConflict          = "CONFLICT"
	CodeUnavailable       = "UNAVAILABLE"
	CodeInternal          = "INTERNAL"
	CodeResourceExhausted = "RESOURCE_EXHAUSTED"
)
