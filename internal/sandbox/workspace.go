package sandbox

import "github.com/ringfence/ringfence/internal/workspace"

// Workspace is the policy-fenced file layer over a sandbox's root: what
// Local.Workspace and Local.WorkspaceFor return. Its contract (package
// internal/workspace has the full manual): every path is a model path
// ("src/a.go" or "/workspace/src/a.go"), refused with an outcome when it
// climbs out, is absolute elsewhere or malformed; it is resolved beneath
// the root without following a link out (openat2 RESOLVE_BENEATH), and the
// policy is checked where it really lands. Reads take a positive byte
// bound and are refused, never cut, past it; writes are atomic (temp file
// and rename in the same directory), only where the policy grants write
// (protected names are held read-only) and refused on a file with another
// hard link; walks (list, glob, grep) never follow links and say which
// bound stopped them. A refusal is an error
// carrying an outcome (outcome.Of). It is safe for concurrent use. Close
// releases it: the caller closes what WorkspaceFor returned, never the
// one Workspace returns (the sandbox's own, closed by Local.Close).
type Workspace = workspace.Workspace

// The options and results of Workspace's methods, named here so a caller
// outside this module can write them.
type (
	// ReadOptions are ReadFile's: MaxBytes (required) and more.
	ReadOptions = workspace.ReadOptions
	// ReadResult is what ReadFile read.
	ReadResult = workspace.ReadResult
	// WriteResult is what WriteFile, EditFile and WriteStream wrote.
	WriteResult = workspace.WriteResult
	// StreamOptions are WriteStream's.
	StreamOptions = workspace.StreamOptions
	// ListOptions are ListFiles'.
	ListOptions = workspace.ListOptions
	// ListResult is what ListFiles listed.
	ListResult = workspace.ListResult
	// ListEntry is one entry of a ListResult.
	ListEntry = workspace.Entry
	// GlobOptions are GlobFiles'.
	GlobOptions = workspace.GlobOptions
	// GlobResult is what GlobFiles found.
	GlobResult = workspace.GlobResult
	// GrepOptions are GrepFiles'.
	GrepOptions = workspace.GrepOptions
	// GrepResult is what GrepFiles found.
	GrepResult = workspace.GrepResult
	// GrepLine is one matching line of a GrepResult.
	GrepLine = workspace.GrepLine
	// GrepCursor is where a page of GlobFiles or GrepFiles ended
	// (GrepResult.Next; GrepOptions.After continues from it).
	GrepCursor = workspace.Cursor
	// Media is what ReadMedia read.
	Media = workspace.Media
	// FileInfo is what Open says of the file it opened.
	FileInfo = workspace.Info
	// DirListing is what ReadDir listed.
	DirListing = workspace.Listing
)
