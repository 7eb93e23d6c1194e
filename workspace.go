package ringfence

import "github.com/ringfence/ringfence/internal/sandbox"

// Workspace is the policy-fenced file layer over a sandbox's root, as
// Local.Workspace and Local.WorkspaceFor return it. Every path is a model
// path ("src/a.go" or "/workspace/src/a.go"), refused with an outcome when
// it climbs out, is absolute elsewhere or malformed; it is resolved beneath
// the root without following a link out, and the policy is checked where
// it really lands. Reads take a positive byte bound and are refused, never
// cut, past it; writes are atomic, only where the policy grants write, and
// refused on a file with another hard link; walks never follow links and
// say which bound stopped them. A refusal is an error carrying an outcome
// (outcome.Of). Safe for concurrent use; the caller closes what
// WorkspaceFor returned, Local.Close closes the sandbox's own.
type Workspace = sandbox.Workspace

// The options and results of Workspace's methods.
type (
	ReadOptions   = sandbox.ReadOptions   // ReadFile's: MaxBytes is required
	ReadResult    = sandbox.ReadResult    // what ReadFile read
	WriteResult   = sandbox.WriteResult   // what WriteFile, EditFile and WriteStream wrote
	StreamOptions = sandbox.StreamOptions // WriteStream's
	ListOptions   = sandbox.ListOptions   // ListFiles'
	ListResult    = sandbox.ListResult    // what ListFiles listed
	ListEntry     = sandbox.ListEntry     // one entry of a ListResult
	GlobOptions   = sandbox.GlobOptions   // GlobFiles'
	GlobResult    = sandbox.GlobResult    // what GlobFiles found
	GrepOptions   = sandbox.GrepOptions   // GrepFiles'
	GrepResult    = sandbox.GrepResult    // what GrepFiles found
	GrepLine      = sandbox.GrepLine      // one matching line of a GrepResult
	GrepCursor    = sandbox.GrepCursor    // where a page ended: Next, passed back as After
	Media         = sandbox.Media         // what ReadMedia read
	FileInfo      = sandbox.FileInfo      // what Open says of the file it opened
	DirListing    = sandbox.DirListing    // what ReadDir listed
)
