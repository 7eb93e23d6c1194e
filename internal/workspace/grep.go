package workspace

import (
	"bytes"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ringfence/ringfence/internal/modelpath"
	"github.com/ringfence/ringfence/outcome"
)

// GrepOptions shapes grep_files.
type GrepOptions struct {
	Path            string // a directory to search, or one file; "" is the root
	Glob            string // only files matching it (by name, or by path when it holds "/")
	CaseInsensitive bool
	ContextLines    int // lines shown before and after each match
	// MaxMatches caps the matching lines of this page; 0 means no cap
	// but the workspace's (Options.MaxMatches, none by default).
	MaxMatches int
	// MaxPageBytes caps this page's output; 0 means Options.MaxPageBytes.
	MaxPageBytes int
	// After resumes a search: only lines after it are shown. It can only
	// hide results, never reach past Path (which is checked as usual).
	After    *Cursor
	NoIgnore bool
}

// Cursor is where a page of results ended: a root-relative path and, for
// grep, the last line shown in it (glob leaves Line zero). Results are
// sorted by path then line, so the next page is everything after it.
type Cursor struct {
	Path string
	Line int
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
	Matches int // matching lines shown on this page
	Files   int // files with a line shown on this page
	// Total is the matching lines from After to the end of the search,
	// this page's included; -1 when the search stopped counting (it only
	// kept what the page needed).
	Total int
	// Next is set when results remain: pass it as After for the next page.
	Next *Cursor
	// Limited holds a scope-limited outcome per bound that was reached —
	// results the search could not find, so no page will show them:
	// "entries", "bytes" (only under Options.MaxReadBytes), "file-size"
	// (files skipped; Observed = how many), "line-length" (Observed =
	// lines cut; the lines are shown, cut).
	Limited []outcome.Outcome
}

// GrepFiles searches file contents for a regular expression (Go RE2
// syntax). Binary files (a NUL in the first 8 KiB) are skipped.
func (w *Workspace) GrepFiles(pattern string, opts GrepOptions) (GrepResult, error) {
	m, err := compileMatcher(pattern, opts.CaseInsensitive)
	if err != nil {
		return GrepResult{}, fail(outcome.Outcome{Kind: outcome.InvalidPattern, Pattern: modelpath.Shown(pattern), Detail: modelpath.Shown(err.Error())})
	}
	if opts.Glob != "" && !doublestar.ValidatePattern(opts.Glob) {
		return GrepResult{}, fail(outcome.Outcome{Kind: outcome.InvalidPattern, Pattern: modelpath.Shown(opts.Glob), Detail: "not a valid glob pattern"})
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
		return GrepResult{}, fail(outcome.Outcome{Kind: outcome.NoMatches, Pattern: modelpath.Shown(pattern), Scope: w.model(rel)})
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
	max    int // matching lines on the page
	budget int // output bytes on the page
	after  Cursor
	walked *outcome.Outcome

	bytes, matches, bigFiles, cutLines atomic.Int64
	bytesHit                           atomic.Bool

	// horizon, once set, is the last file kept: the search found more than
	// a page needs and forgot the files after it (their matches are found
	// again by the next page). It only ever moves down.
	horizon atomic.Pointer[string]
	mu      sync.Mutex
	files   []fileHits
	held    int // lines held in files
	pruned  bool
}

type fileHits struct {
	rel   string
	lines []GrepLine
	n     int
}

func (w *Workspace) newGrep(m *matcher, opts GrepOptions, base string) *grep {
	g := &grep{w: w, m: m, opts: opts, base: base, max: math.MaxInt, budget: w.opts.MaxPageBytes}
	if opts.MaxMatches > 0 {
		g.max = opts.MaxMatches
	}
	if w.opts.MaxMatches > 0 {
		g.max = min(g.max, w.opts.MaxMatches)
	}
	if opts.MaxPageBytes > 0 {
		g.budget = opts.MaxPageBytes
	}
	if opts.After != nil {
		g.after = *opts.After
	}
	return g
}

func (g *grep) walk(base string) {
	k := &walker{w: g.w, noIgnore: g.opts.NoIgnore, skipDir: g.skipDir}
	k.visit = func(dirfd int, e walkEntry) bool {
		if e.typ.IsRegular() && g.inPage(e.rel) && g.wanted(e) {
			g.file(dirfd, e.name, e.rel)
		}
		return !g.bytesHit.Load()
	}
	g.walked = k.run(base)
}

// inPage: a file before the cursor was shown on an earlier page, one past
// the horizon is left for a later one.
func (g *grep) inPage(rel string) bool {
	if rel < g.after.Path {
		return false
	}
	h := g.horizon.Load()
	return h == nil || rel <= *h
}

func (g *grep) skipDir(rel string) bool { return beforeCursor(rel, g.after.Path) }

// beforeCursor reports whether every path beneath dir sorts before cursor:
// the directory is not a prefix of the cursor and sorts before it (paths
// beneath it all start with dir + "/", so they compare like it).
func beforeCursor(dir, cursor string) bool {
	if cursor == "" {
		return false
	}
	d := dir + "/"
	return d < cursor && !strings.HasPrefix(cursor, d)
}

// one searches a single file named as the base.
func (g *grep) one(real string) {
	dir, name := splitRel(real)
	fd, err := g.w.res.sysOpenDirRead(dir)
	if err != nil {
		return
	}
	defer sysClose(fd)
	if g.inPage(real) {
		g.file(fd, name, real)
	}
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

// pooledMax: buffers for files this big or bigger are not pooled.
const pooledMax = 4 << 20

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
	if g.w.opts.MaxReadBytes > 0 && g.bytes.Add(st.size) > g.w.opts.MaxReadBytes {
		g.bytesHit.Store(true)
		return
	}
	bp := bufPool.Get().(*[]byte)
	if st.size >= pooledMax {
		// A big file's buffer is not kept in the pool after the call.
		bp = &[]byte{}
	} else {
		defer bufPool.Put(bp)
	}
	if int64(cap(*bp)) < st.size+1 {
		*bp = make([]byte, 0, st.size+1)
	}
	// The bytes fstat counted, with no second read to see EOF: what a
	// file gains while it is searched is not searched (it was not there
	// when the search reached it), and half the read calls go.
	data := (*bp)[:st.size]
	n, err := sysRead(fd, data) // stops when data is full
	if err != nil {
		return
	}
	data = data[:n]
	if bytes.IndexByte(data[:min(n, sniffLen)], 0) >= 0 {
		return
	}
	hits := g.m.find(data, math.MaxInt)
	if rel == g.after.Path { // the cursor's own file: lines after it only
		i := 0
		for i < len(hits) && hits[i].line <= g.after.Line {
			i++
		}
		hits = hits[i:]
	}
	if len(hits) == 0 {
		return
	}
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
	defer g.mu.Unlock()
	if h := g.horizon.Load(); h != nil && rel > *h {
		return
	}
	g.matches.Add(int64(fh.n))
	g.files = append(g.files, fh)
	g.held += len(fh.lines)
	if g.held > 2*maxHeldLines {
		g.prune()
	}
}

// maxHeldLines bounds what a search keeps beyond one page's needs (a
// variable so a test can make the search forget early).
var maxHeldLines = 1 << 16

// prune keeps the first files (by path) until they hold a page — the
// page's matches, output bytes or maxHeldLines lines — and forgets the
// rest: the next page finds them again. Called with g.mu held.
func (g *grep) prune() {
	sort.Slice(g.files, func(i, j int) bool { return g.files[i].rel < g.files[j].rel })
	lines, matches, cost := 0, 0, 0
	for i, f := range g.files {
		for _, l := range f.lines {
			lines++
			cost += lineCost(l)
			if l.Match {
				matches++
			}
		}
		if matches >= g.max || cost >= g.budget || lines >= maxHeldLines {
			h := f.rel
			g.horizon.Store(&h)
			g.files, g.held, g.pruned = g.files[:i+1], lines, true
			return
		}
	}
}

// lineCost is the bytes a line takes as shown: path:line:text and a newline.
func lineCost(l GrepLine) int {
	return len(l.Path) + len(l.Text) + 4 + digits(l.Line)
}

func digits(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
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

// result sorts what was found and cuts one page from it: up to the page's
// matches or output bytes (at least one line, so every page moves on).
func (g *grep) result(pattern string) GrepResult {
	sort.Slice(g.files, func(i, j int) bool { return g.files[i].rel < g.files[j].rel })
	res := GrepResult{Pattern: pattern, Total: int(g.matches.Load())}
	if g.pruned {
		res.Total = -1
	}
	cost, prev := 0, ""
page:
	for _, f := range g.files {
		shown := false
		for _, l := range f.lines {
			if f.rel == g.after.Path && l.Line <= g.after.Line {
				continue
			}
			c := lineCost(l)
			if len(res.Lines) > 0 && ((l.Match && res.Matches >= g.max) || cost+c > g.budget) {
				if shown {
					res.Next = &Cursor{Path: f.rel, Line: res.Lines[len(res.Lines)-1].Line}
				} else { // every line of the files before this one was shown
					res.Next = &Cursor{Path: prev, Line: math.MaxInt}
				}
				break page
			}
			if l.Match {
				res.Matches++
			}
			cost += c
			res.Lines = append(res.Lines, l)
			shown = true
		}
		if shown {
			res.Files++
		}
		prev = f.rel
	}
	if res.Next == nil && g.pruned && len(g.files) > 0 {
		// Everything kept was shown, but files past the horizon were
		// forgotten: the next page starts after the last file kept.
		res.Next = &Cursor{Path: g.files[len(g.files)-1].rel, Line: math.MaxInt}
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
	return out
}
