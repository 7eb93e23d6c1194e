package workspace

import (
	"sort"
	"sync"

	"github.com/ringfence/ringfence/outcome"
)

// DefaultMaxResults bounds the entries list_files and glob_files return.
const DefaultMaxResults = 1_000

// Entry is one name in a listing.
type Entry struct {
	Path string // model path
	Type string // "file", "directory", "symlink", "fifo", "socket", …
}

// ListOptions shapes list_files.
type ListOptions struct {
	Depth    int  // levels below the path; 0 means 1 (its children)
	NoIgnore bool // show what .gitignore hides
}

// ListResult is what list_files returns. Limited holds a scope-limited
// outcome for each bound that stopped the listing.
type ListResult struct {
	Path    string
	Entries []Entry
	Limited []outcome.Outcome
}

// ListFiles lists a directory to a depth, sorted by path. Links are listed
// as links and never entered.
func (w *Workspace) ListFiles(path string, opts ListOptions) (ListResult, error) {
	rel, real, st, err := w.openBase(path)
	if err != nil {
		return ListResult{}, err
	}
	if !st.mode.IsDir() {
		return ListResult{}, fail(outcome.Outcome{Kind: outcome.NotADirectory, Path: w.model(rel)})
	}
	var mu sync.Mutex
	var out []Entry
	k := &walker{w: w, noIgnore: opts.NoIgnore, maxDepth: max(opts.Depth, 1)}
	k.visit = func(_ int, e walkEntry) bool {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, Entry{Path: w.model(e.rel), Type: fileType(e.typ)})
		return true
	}
	res := ListResult{Path: w.model(rel)}
	if lim := k.run(real); lim != nil {
		res.Limited = append(res.Limited, *lim)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	res.Entries, res.Limited = w.capResults(out, rel, res.Limited)
	return res, nil
}

func (w *Workspace) capResults(out []Entry, rel string, lim []outcome.Outcome) ([]Entry, []outcome.Outcome) {
	if len(out) <= w.maxResults() {
		return out, lim
	}
	out = out[:w.maxResults()]
	return out, append(lim, outcome.Outcome{Kind: outcome.ScopeLimited, Path: w.model(rel),
		Bound: "results", Limit: int64(w.maxResults()), Shown: len(out)})
}

func (w *Workspace) maxResults() int {
	if w.opts.MaxResults > 0 {
		return w.opts.MaxResults
	}
	return DefaultMaxResults
}
