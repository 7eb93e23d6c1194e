package workspace

import (
	"strings"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// checkFileWrite is checkWrite for a regular file about to be written at
// real, with one rule more: no file at a ".git" itself. A ".git" file is
// a "gitdir:" pointer that tells git which directory's config, hooks and
// objects apply to the tree around it (policy.NameGitDir). The backends'
// name guard lets a command write one only with content pointing into a
// git directory it holds; this fence does not read content, so it
// refuses the name instead (a REST PUT or write_file of sub/.git with
// "gitdir: /anywhere" was written as given). A write layer at exactly
// the path reopens it, as for other protected names.
func (w *Workspace) checkFileWrite(real, shownRel string) error {
	if err := w.checkWrite(real, shownRel); err != nil {
		return err
	}
	if w.gitPointer(w.host(real)) {
		return fail(outcome.Outcome{Kind: outcome.DeniedByPolicy, Path: w.model(shownRel), Axis: "write", Reason: ReasonProtectedName})
	}
	return nil
}

// gitPointer reports whether h is a ".git" itself beneath a writable root
// (as the policy's name rules see it: not under node_modules, not when
// git is left writable), with no write layer at exactly h.
func (w *Workspace) gitPointer(h string) bool {
	h = policy.Clean(h)
	for _, l := range w.pol.Layers {
		if l.Access == policy.Write && policy.Clean(l.Path) == h {
			return false
		}
	}
	for _, r := range w.pol.WritableRoots().Roots {
		r = policy.Clean(r)
		if r == h || !policy.Contains(r, h) {
			continue
		}
		m := w.pol.Names.Match(strings.TrimPrefix(h, r+"/"))
		if m.Kind == policy.NameGitDir && m.Self && m.Name == ".git" {
			return true
		}
	}
	return false
}
