package outcome

import (
	"path"
	"strings"
)

// DefaultMountPath is where the model sees the workspace when the
// deployment names no other place.
const DefaultMountPath = "/workspace"

// Context is what narration may say about the deployment. HostRoot is
// there only so it can be removed: no text this package produces contains
// it except as part of MountPath.
type Context struct {
	MountPath  string   // the workspace as the model sees it; "" is /workspace
	WriteRoots []string // the writable roots, as model paths
	Mode       string   // the file-effect mode in force, e.g. "workspace-write"
	HostRoot   string   // the configured host root: used only to scrub
	// PrivateTmp says the command's /tmp is a private scratch mount that
	// is thrown away when the command ends (the linux and bwrap backends).
	PrivateTmp bool
	// Audience is who reads the narration: a model (the zero value) is
	// advised in tool-argument words, the command line in its flags.
	Audience Audience
}

func (c Context) mount() string {
	if c.MountPath == "" {
		return DefaultMountPath
	}
	return c.MountPath
}

// scrubber returns the rewriting of this host root. A root that is not
// absolute, or is "/", cannot be scrubbed meaningfully (every path holds
// it) and is left alone; policy.Policy.Root is always absolute and clean.
func (c Context) scrubber() scrubber {
	root := c.HostRoot
	if !strings.HasPrefix(root, "/") {
		return scrubber{}
	}
	return scrubber{root: path.Clean(root), mount: c.mount()}
}

// Scrub returns o with the host root rewritten to the mount path in every
// string field but a path-rejected Path, the model's own (given.go).
// Apply it to any outcome before it is shown or serialised; Narrate and
// FromExec already do.
func (c Context) Scrub(o Outcome) Outcome {
	s := c.scrubber()
	if !s.active() {
		return o
	}
	given := o.Path
	for _, f := range []*string{&o.Path, &o.Axis, &o.Reason, &o.Note, &o.Bound, &o.FileType,
		&o.Signal, &o.Pattern, &o.Scope, &o.Detail, &o.Stage, &o.Program, &o.Network} {
		*f = s.scrub(*f)
	}
	o.WriteRoots = scrubAll(s, o.WriteRoots)
	o.Violations = scrubAll(s, o.Violations)
	o.Protected = scrubAll(s, o.Protected)
	if givenPath(o) {
		o.Path = given // the model's own argument, shown as given
	}
	return o
}

// ScrubViolations rewrites the host root in violation records, for callers
// that serialise them beside the outcome.
func (c Context) ScrubViolations(vs []Violation) []Violation {
	s := c.scrubber()
	if !s.active() || vs == nil {
		return vs
	}
	out := make([]Violation, len(vs))
	for i, v := range vs {
		v.Path, v.Target, v.Snippet, v.Protection = s.scrub(v.Path), s.scrub(v.Target), s.scrub(v.Snippet), s.scrub(v.Protection)
		out[i] = v
	}
	return out
}

func scrubAll(s scrubber, in []string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = s.scrub(v)
	}
	return out
}
