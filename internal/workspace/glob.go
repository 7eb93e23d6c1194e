package workspace

import (
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ringfence/ringfence/internal/modelpath"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
)

// GlobOptions shapes glob_files.
type GlobOptions struct {
	Base     string // the directory the pattern is relative to; "" is the root
	NoIgnore bool
	// MaxResults caps the paths of this page; 0 means no cap.
	MaxResults int
	// MaxPageBytes caps this page's output (paths and newlines); 0 means
	// Options.MaxPageBytes.
	MaxPageBytes int
	// After resumes: only paths after its Path (root-relative) are shown.
	// It can only hide results.
	After *Cursor
}

// GlobResult is what glob_files returns: matching files (and links), not
// directories, as model paths sorted by path.
type GlobResult struct {
	Pattern string
	Paths   []string
	Total   int     // matching paths from After to the end, this page's included
	Next    *Cursor // set when paths remain: pass it as After
	Limited []outcome.Outcome
}

// GlobFiles matches pattern (doublestar syntax, `**` for any depth) against
// the files beneath Base. The pattern's fixed leading directories narrow
// the walk, and a pattern without `**` bounds its depth.
func (w *Workspace) GlobFiles(pattern string, opts GlobOptions) (GlobResult, error) {
	pat := w.mount().Strip(pattern)
	if !doublestar.ValidatePattern(pat) || pat == "" {
		return GlobResult{}, fail(outcome.Outcome{Kind: outcome.InvalidPattern, Pattern: modelpath.Shown(pattern), Detail: "not a valid glob pattern"})
	}
	if strings.HasPrefix(pat, "/") {
		return GlobResult{}, modelpath.Reject(pattern, string(pathrule.Absolute))
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
	var after string
	if opts.After != nil {
		after = opts.After.Path
	}
	rels, lim := w.glob(real, rest, opts.NoIgnore, after)
	if len(rels) == 0 && lim == nil {
		return GlobResult{}, fail(outcome.Outcome{Kind: outcome.NoMatches, Pattern: modelpath.Shown(pattern), Scope: w.model(rel)})
	}
	res := GlobResult{Pattern: pattern, Limited: lim, Total: len(rels)}
	budget := w.opts.MaxPageBytes
	if opts.MaxPageBytes > 0 {
		budget = opts.MaxPageBytes
	}
	cost := 0
	for i, r := range rels {
		m := w.model(r)
		if i > 0 && (cost+len(m)+1 > budget || (opts.MaxResults > 0 && i >= opts.MaxResults)) {
			res.Next = &Cursor{Path: rels[i-1]}
			break
		}
		cost += len(m) + 1
		res.Paths = append(res.Paths, m)
	}
	return res, nil
}

// joinScope puts the pattern's fixed prefix under the base, as a path the
// model could have named (so it goes through the same rule).
func (w *Workspace) joinScope(base, prefix string) string {
	b := w.mount().Strip(base)
	if b == "" || b == "." {
		return prefix
	}
	return strings.TrimSuffix(b, "/") + "/" + prefix
}

// glob walks real for pat and returns the root-relative paths after the
// cursor, sorted.
func (w *Workspace) glob(real, pat string, noIgnore bool, after string) ([]string, []outcome.Outcome) {
	var mu sync.Mutex
	var out []string
	k := &walker{w: w, noIgnore: noIgnore, skipDir: func(rel string) bool { return beforeCursor(rel, after) }}
	if !strings.Contains(pat, "**") {
		k.maxDepth = strings.Count(pat, "/") + 1
	}
	cut := len(real) + 1
	if real == "" {
		cut = 0
	}
	k.visit = func(_ int, e walkEntry) bool {
		if e.typ.IsDir() || e.rel <= after || !doublestar.MatchUnvalidated(pat, e.rel[cut:]) {
			return true
		}
		mu.Lock()
		out = append(out, e.rel)
		mu.Unlock()
		return true
	}
	var lim []outcome.Outcome
	if l := k.run(real); l != nil {
		lim = append(lim, *l)
	}
	sort.Strings(out)
	return out, lim
}
