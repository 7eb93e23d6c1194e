package workspace

import (
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ringfence/ringfence/outcome"
)

// GlobOptions shapes glob_files.
type GlobOptions struct {
	Base     string // the directory the pattern is relative to; "" is the root
	NoIgnore bool
}

// GlobResult is what glob_files returns: matching files (and links), not
// directories, as model paths sorted by path.
type GlobResult struct {
	Pattern string
	Paths   []string
	Limited []outcome.Outcome
}

// GlobFiles matches pattern (doublestar syntax, `**` for any depth) against
// the files beneath Base. The pattern's fixed leading directories narrow
// the walk, and a pattern without `**` bounds its depth.
func (w *Workspace) GlobFiles(pattern string, opts GlobOptions) (GlobResult, error) {
	pat := w.stripMount(pattern)
	if !doublestar.ValidatePattern(pat) || pat == "" {
		return GlobResult{}, fail(outcome.Outcome{Kind: outcome.InvalidPattern, Pattern: shown(pattern), Detail: "not a valid glob pattern"})
	}
	if strings.HasPrefix(pat, "/") {
		return GlobResult{}, fail(outcome.Outcome{Kind: outcome.PathRejected, Path: shown(pattern), Reason: "absolute"})
	}
	prefix, rest := doublestar.SplitPattern(pat)
	scope := opts.Base
	if prefix != "." && prefix != "" {
		scope = w.joinScope(opts.Base, prefix)
	}
	rel, real, st, err := w.openBase(scope)
	if err != nil {
		return GlobResult{}, err
	}
	if !st.mode.IsDir() {
		return GlobResult{}, fail(outcome.Outcome{Kind: outcome.NotADirectory, Path: w.model(rel)})
	}
	paths, lim := w.glob(real, rest, opts.NoIgnore)
	if len(paths) == 0 && lim == nil {
		return GlobResult{}, fail(outcome.Outcome{Kind: outcome.NoMatches, Pattern: shown(pattern), Scope: w.model(rel)})
	}
	res := GlobResult{Pattern: pattern, Limited: lim}
	entries, lim := w.capResults(paths, rel, res.Limited)
	for _, e := range entries {
		res.Paths = append(res.Paths, e.Path)
	}
	res.Limited = lim
	return res, nil
}

// joinScope puts the pattern's fixed prefix under the base, as a path the
// model could have named (so it goes through the same rule).
func (w *Workspace) joinScope(base, prefix string) string {
	b := w.stripMount(base)
	if b == "" || b == "." {
		return prefix
	}
	return strings.TrimSuffix(b, "/") + "/" + prefix
}

func (w *Workspace) glob(real, pat string, noIgnore bool) ([]Entry, []outcome.Outcome) {
	var mu sync.Mutex
	var out []Entry
	k := &walker{w: w, noIgnore: noIgnore}
	if !strings.Contains(pat, "**") {
		k.maxDepth = strings.Count(pat, "/") + 1
	}
	cut := len(real) + 1
	if real == "" {
		cut = 0
	}
	k.visit = func(_ int, e walkEntry) bool {
		if e.typ.IsDir() || !doublestar.MatchUnvalidated(pat, e.rel[cut:]) {
			return true
		}
		mu.Lock()
		out = append(out, Entry{Path: w.model(e.rel)})
		mu.Unlock()
		return true
	}
	var lim []outcome.Outcome
	if l := k.run(real); l != nil {
		lim = append(lim, *l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, lim
}
