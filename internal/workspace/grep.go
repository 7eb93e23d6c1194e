package workspace

import (
	"bytes"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ringfence/ringfence/outcome"
)

// GrepOptions shapes grep_files.
type GrepOptions struct {
	Path            string // a directory to search, or one file; "" is the root
	Glob            string // only files matching it (by name, or by path when it holds "/")
	CaseInsensitive bool
	ContextLines    int // lines shown before and after each match
	MaxMatches      int // matching lines shown; 0 means the workspace default
	NoIgnore        bool
}

// GrepLine is one line shown: a match, or context around one.
type GrepLine struct {
	Path  string // model path
	Line  int    // 1-based
	Text  string // the line, without its newline, cut to MaxLineChars
	Match bool   // false for a context line
	Cut   bool   // Text was cut at MaxLineChars
}

// GrepResult is what grep_files returns, sorted by path then line.
type GrepResult struct {
	Pattern string
	Lines   []GrepLine
	Matches int // matching lines shown
	Files   int // files with a match shown
	// Limited holds a scope-limited outcome per bound that was reached:
	// "entries", "bytes", "file-size" (files skipped; Observed = how
	// many), "line-length" (Observed = lines cut), "matches".
	Limited []outcome.Outcome
}

// GrepFiles searches file contents for a regular expression (Go RE2
// syntax). Binary files (a NUL in the first 8 KiB) are skipped.
func (w *Workspace) GrepFiles(pattern string, opts GrepOptions) (GrepResult, error) {
	m, err := compileMatcher(pattern, opts.CaseInsensitive)
	if err != nil {
		return GrepResult{}, fail(outcome.Outcome{Kind: outcome.InvalidPattern, Pattern: shown(pattern), Detail: shown(err.Error())})
	}
	if opts.Glob != "" && !doublestar.ValidatePattern(opts.Glob) {
		return GrepResult{}, fail(outcome.Outcome{Kind: outcome.InvalidPattern, Pattern: shown(opts.Glob), Detail: "not a valid glob pattern"})
	}
	rel, real, st, err := w.openBase(opts.Path)
	if err != nil {
		return GrepResult{}, err
	}
	g := w.newGrep(m, opts, real)
	switch {
	case st.mode.IsDir():
		g.walk(real)
	case st.mode.IsRegular():
		g.one(real)
	default:
		return GrepResult{}, w.checkType(rel, st.mode)
	}
	res := g.result(pattern)
	if res.Matches == 0 && len(res.Limited) == 0 {
		return GrepResult{}, fail(outcome.Outcome{Kind: outcome.NoMatches, Pattern: shown(pattern), Scope: w.model(rel)})
	}
	return res, nil
}

// grep is one search in progress; its counters are shared by the walker's
// goroutines.
type grep struct {
	w      *Workspace
	m      *matcher
	opts   GrepOptions
	base   string
	max    int
	walked *outcome.Outcome

	bytes, matches, bigFiles, cutLines atomic.Int64
	bytesHit                           atomic.Bool

	mu    sync.Mutex
	files []fileHits
}

type fileHits struct {
	rel   string
	lines []GrepLine
	n     int
}

func (w *Workspace) newGrep(m *matcher, opts GrepOptions, base string) *grep {
	max := opts.MaxMatches
	if max <= 0 {
		max = w.opts.MaxMatches
	}
	return &grep{w: w, m: m, opts: opts, base: base, max: max}
}

func (g *grep) walk(base string) {
	k := &walker{w: g.w, noIgnore: g.opts.NoIgnore}
	k.visit = func(dirfd int, e walkEntry) bool {
		if e.typ.IsRegular() && g.wanted(e) {
			g.file(dirfd, e.name, e.rel)
		}
		return !g.full()
	}
	g.walked = k.run(base)
}

// one searches a single file named as the base.
func (g *grep) one(real string) {
	dir, name := splitRel(real)
	fd, err := g.w.res.sysOpenDirRead(dir)
	if err != nil {
		return
	}
	defer sysClose(fd)
	g.file(fd, name, real)
}

func (g *grep) wanted(e walkEntry) bool {
	if g.opts.Glob == "" {
		return true
	}
	target := e.name
	if strings.Contains(g.opts.Glob, "/") {
		target = strings.TrimPrefix(strings.TrimPrefix(e.rel, g.base), "/")
	}
	return doublestar.MatchUnvalidated(g.opts.Glob, target)
}

func (g *grep) full() bool {
	return g.matches.Load() >= int64(g.max) || g.bytesHit.Load()
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// file reads one file whole (small files are the common case; the size
// bound keeps the rest in check) and records its matching lines.
func (g *grep) file(dirfd int, name, rel string) {
	fd, err := sysOpenChild(dirfd, name)
	if err != nil {
		return
	}
	defer sysClose(fd)
	st, err := sysFstat(fd)
	if err != nil || !st.mode.IsRegular() {
		return
	}
	if st.size > g.w.opts.MaxFileBytes {
		g.bigFiles.Add(1)
		return
	}
	if g.bytes.Add(st.size) > g.w.opts.MaxReadBytes {
		g.bytesHit.Store(true)
		return
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	if int64(cap(*bp)) < st.size+1 {
		*bp = make([]byte, 0, st.size+1)
	}
	buf := (*bp)[:st.size+1]
	n, err := sysRead(fd, buf)
	if err != nil || n > int(st.size) { // grew while read: skip rather than guess
		return
	}
	data := buf[:n]
	if bytes.IndexByte(data[:min(n, sniffLen)], 0) >= 0 {
		return
	}
	hits := g.m.find(data, g.max)
	if len(hits) == 0 {
		return
	}
	g.matches.Add(int64(len(hits)))
	g.record(rel, data, hits)
}

func (g *grep) record(rel string, data []byte, hits []hit) {
	fh := fileHits{rel: rel, n: len(hits)}
	model := g.w.model(rel)
	if g.opts.ContextLines <= 0 {
		for _, h := range hits {
			fh.lines = append(fh.lines, g.line(model, h.line, data[h.start:h.end], true))
		}
	} else {
		fh.lines = g.withContext(model, data, hits)
	}
	g.mu.Lock()
	g.files = append(g.files, fh)
	g.mu.Unlock()
}

// line makes one shown line, cut at MaxLineChars characters.
func (g *grep) line(model string, n int, text []byte, match bool) GrepLine {
	l := GrepLine{Path: model, Line: n, Match: match}
	if utf8.RuneCount(text) > g.w.opts.MaxLineChars {
		text, l.Cut = cutRunes(text, g.w.opts.MaxLineChars), true
		g.cutLines.Add(1)
	}
	l.Text = string(bytes.TrimSuffix(text, []byte{'\r'}))
	return l
}

func cutRunes(b []byte, n int) []byte {
	i := 0
	for ; n > 0 && i < len(b); n-- {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return b[:i]
}

// withContext adds up to ContextLines lines around each hit, merging
// overlapping stretches so no line is shown twice.
func (g *grep) withContext(model string, data []byte, hits []hit) []GrepLine {
	starts := lineStarts(data)
	isHit := make(map[int]bool, len(hits))
	for _, h := range hits {
		isHit[h.line] = true
	}
	var out []GrepLine
	next := 1
	for _, h := range hits {
		from := max(h.line-g.opts.ContextLines, next)
		to := min(h.line+g.opts.ContextLines, len(starts))
		for n := from; n <= to; n++ {
			out = append(out, g.line(model, n, lineAt(data, starts, n), isHit[n]))
		}
		next = to + 1
	}
	return out
}

// lineStarts is the offset of each line; a final newline starts no line.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func lineAt(data []byte, starts []int, n int) []byte {
	s := starts[n-1]
	e := len(data)
	if n < len(starts) {
		e = starts[n] - 1
	}
	return bytes.TrimSuffix(data[s:e], []byte{'\n'})
}

// result sorts what was found, applies the match bound, and names every
// bound that was reached.
func (g *grep) result(pattern string) GrepResult {
	sort.Slice(g.files, func(i, j int) bool { return g.files[i].rel < g.files[j].rel })
	res := GrepResult{Pattern: pattern}
	for _, f := range g.files {
		if res.Matches >= g.max {
			break
		}
		for _, l := range f.lines {
			if l.Match && res.Matches >= g.max {
				break
			}
			if l.Match {
				res.Matches++
			}
			res.Lines = append(res.Lines, l)
		}
		res.Files++
	}
	res.Limited = g.limits(res)
	return res
}

func (g *grep) limits(res GrepResult) []outcome.Outcome {
	scope := g.w.model(g.base)
	lim := func(bound string, limit, observed int64) outcome.Outcome {
		return outcome.Outcome{Kind: outcome.ScopeLimited, Path: scope, Bound: bound, Limit: limit, Observed: observed, Shown: res.Matches}
	}
	var out []outcome.Outcome
	if g.walked != nil {
		out = append(out, *g.walked)
	}
	if g.bytesHit.Load() {
		out = append(out, lim("bytes", g.w.opts.MaxReadBytes, g.bytes.Load()))
	}
	if n := g.bigFiles.Load(); n > 0 {
		out = append(out, lim("file-size", g.w.opts.MaxFileBytes, n))
	}
	if n := g.cutLines.Load(); n > 0 {
		out = append(out, lim("line-length", int64(g.w.opts.MaxLineChars), n))
	}
	if g.matches.Load() >= int64(g.max) {
		out = append(out, lim("matches", int64(g.max), g.matches.Load()))
	}
	return out
}
