package workspace

import (
	"strings"

	"github.com/ringfence/ringfence/internal/modelpath"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

// Reasons for a path-rejected outcome found on disk rather than in the
// name: pathrule's reasons cover the name, these cover the links.
const (
	ReasonEscape   = string(pathrule.Escape) // a link leads out of the root
	ReasonLinkLoop = "link-loop"             // too many links, or a /proc magic link
	ReasonTooLong  = "too-long"              // the kernel refused the name's length
)

// ReasonProtectedName is the Reason of a denied-by-policy write refused
// because the name is protected at any depth (policy.MatchProtectedName).
const ReasonProtectedName = "protected-name"

// mount is the model-path reading of this workspace (internal/modelpath):
// mount stripping, cleaning, the bound and the refusal, shared with the
// tools and the facade.
func (w *Workspace) mount() modelpath.Mount { return modelpath.Mount(w.opts.MountPath) }

// clean turns a model path into a clean relative path, or path-rejected.
func (w *Workspace) clean(path string) (string, error) { return w.mount().Clean(path) }

// cleanScope is clean for the base of a walk, where the root itself
// ("", ".", "/workspace") is a valid answer.
func (w *Workspace) cleanScope(path string) (string, error) { return w.mount().Scope(path) }

// lookupFailure turns an errno from a lookup into the outcome for rel.
func (w *Workspace) lookupFailure(rel string, err error) error {
	p := w.model(rel)
	switch {
	case isNotExist(err):
		return fail(outcome.Outcome{Kind: outcome.NotFound, Path: p})
	case isEscape(err):
		return fail(outcome.Outcome{Kind: outcome.PathRejected, Path: p, Reason: ReasonEscape})
	case isLoop(err):
		return fail(outcome.Outcome{Kind: outcome.PathRejected, Path: p, Reason: ReasonLinkLoop})
	case isNameLong(err):
		return fail(outcome.Outcome{Kind: outcome.PathRejected, Path: p, Reason: ReasonTooLong})
	case isNotDir(err):
		return fail(outcome.Outcome{Kind: outcome.NotADirectory, Path: p})
	case isHostPerm(err):
		return fail(ioFailure(p, "the host refused access"))
	}
	return fail(ioFailure(p, "the file system failed"))
}

// checkRead refuses a read where the policy denies it. real is the
// symlink-free path the lookup reached; shownRel is what the model asked.
func (w *Workspace) checkRead(real, shownRel string) error {
	if w.pol.AccessAt(w.host(real)) >= policy.Read {
		return nil
	}
	return fail(outcome.Outcome{Kind: outcome.DeniedByPolicy, Path: w.model(shownRel), Axis: "read"})
}

// checkWrite refuses a write where the policy does not grant write: outside
// every writable root, or in a read-only carve-out inside one.
func (w *Workspace) checkWrite(real, shownRel string) error {
	h := w.host(real)
	if w.pol.AccessAt(h) == policy.Write {
		// Names protected at any depth (.envrc, .git/hooks, a hook name)
		// have no layer: the backends' guards hold them for commands, and
		// this fence must hold them for its own writes.
		if w.protectedName(h) {
			return fail(outcome.Outcome{Kind: outcome.DeniedByPolicy, Path: w.model(shownRel), Axis: "write", Reason: ReasonProtectedName})
		}
		return nil
	}
	roots := w.pol.WritableRoots().Roots
	for _, r := range roots {
		if policy.Contains(r, h) {
			return fail(outcome.Outcome{Kind: outcome.DeniedByPolicy, Path: w.model(shownRel), Axis: "write"})
		}
	}
	return fail(outcome.Outcome{Kind: outcome.OutsideWriteRoot, Path: w.model(shownRel), WriteRoots: w.modelRoots(roots)})
}

// protectedName reports whether h, writable by the layers, is protected
// by name. A write layer at exactly h (an approval, an operator's entry)
// reopens it, as a layer reopens a protected path; a broader grant never
// does.
func (w *Workspace) protectedName(h string) bool {
	h = policy.Clean(h)
	for _, l := range w.pol.Layers {
		if l.Access == policy.Write && policy.Clean(l.Path) == h {
			return false
		}
	}
	return w.pol.ProtectedByName(h)
}

// modelRoots shows the writable roots the model can name: those beneath
// the workspace root, as model paths. Others (the private temp dir) are
// not the model's to address and are left out rather than shown as host
// paths.
func (w *Workspace) modelRoots(roots []string) []string {
	var out []string
	for _, r := range roots {
		if !policy.Contains(w.pol.Root, r) {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(policy.Clean(r), policy.Clean(w.pol.Root)), "/")
		out = append(out, w.model(rel))
	}
	return out
}

// readable reports whether a listing may show or enter rel: the policy
// grants read there, or, for a directory, a narrower layer inside it does
// (a denied subtree is hidden unless it holds a readable carve-out). The
// walks ask the same policy.Tree one directory at a time; a one-directory
// listing asks it for each entry.
func (w *Workspace) readable(rel string, dir bool) bool {
	v := w.pol.Tree().Dir(w.host(rel))
	return v.Access() >= policy.Read || dir && v.Beneath()
}
