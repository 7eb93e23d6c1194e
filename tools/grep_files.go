package tools

import (
	"context"
	"strconv"
	"strings"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

type grepArgs struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path"`
	Glob            string `json:"glob"`
	CaseInsensitive bool   `json:"case_insensitive"`
	ContextLines    int    `json:"context_lines"`
	MaxMatches      int    `json:"max_matches"`
	Cursor          string `json:"cursor"`
}

// GrepData is grep_files' structured result.
type GrepData struct {
	Pattern string               `json:"pattern"`
	Lines   []workspace.GrepLine `json:"lines"`
	Matches int                  `json:"matches"` // on this page
	Files   int                  `json:"files"`   // on this page
	// Total is the matching lines from this page to the end; -1 when the
	// search kept only what this page needed.
	Total      int    `json:"total"`
	NextCursor string `json:"next_cursor,omitempty"` // more follow: pass it as cursor
}

const maxContextLines = 10

func init() {
	register(func(s *Set) tool {
		return &spec[grepArgs]{
			set: s, tname: "grep_files", title: "Search file contents",
			hints: readOnly, data: dataType[GrepData](),
			desc: "Search the contents of workspace files for a regular expression (RE2 syntax, as in Go; no backreferences). " +
				"path is a directory or one file (default the workspace root, " + s.nc.MountPath + "); glob keeps only files " +
				"matching it (e.g. \"*.go\"). Output lines are path:line:text for matches and path-line-text for context lines. " +
				"Binary files, .git and what .gitignore hides are skipped; long lines are cut. The search covers everything; " +
				"a large result comes in pages: the answer then gives a cursor to pass back for the next page.",
			schema: obj([]string{"pattern"}, map[string]*prop{
				"pattern":          str("The regular expression.", 1, maxPatternChars),
				"path":             str("A directory or file: relative to the workspace, or under "+s.nc.MountPath+"; default the root.", 0, maxPathChars),
				"glob":             str("Only search files matching this glob (by name, or by path when it holds /).", 0, maxPatternChars),
				"case_insensitive": boolean("Match letters in either case."),
				"context_lines":    integer("Lines of context shown before and after each match.", 0, maxContextLines),
				"max_matches":      integer("The most matching lines on this page (default: as many as fit a page).", 1, maxPageItems),
				"cursor":           str("The cursor a previous page returned, with the same other arguments: shows the next page.", 0, maxCursorChars),
			}),
			perms: func(a *grepArgs) ([]string, error) { return s.declare(permRead, a.Path, true) },
			run:   s.grepFiles,
		}
	})
}

// maxPageItems bounds max_matches and max_results.
const maxPageItems = 1 << 20

func (s *Set) grepFiles(_ context.Context, a *grepArgs) Result {
	q := *a
	q.Cursor = ""
	query := cursorQuery("grep_files", q)
	after, err := openCursor(query, a.Cursor)
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	res, err := s.sb.Workspace().GrepFiles(a.Pattern, workspace.GrepOptions{
		Path: a.Path, Glob: a.Glob, CaseInsensitive: a.CaseInsensitive,
		ContextLines: a.ContextLines, MaxMatches: a.MaxMatches, After: after,
	})
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	for i := range res.Lines {
		res.Lines[i].Text = s.scrub(res.Lines[i].Text)
	}
	d := &GrepData{Pattern: a.Pattern, Lines: res.Lines, Matches: res.Matches, Files: res.Files, Total: res.Total,
		NextCursor: sealCursor(query, res.Next)}
	summary := outcome.GrepSummary(res.Matches, res.Files, res.Total, d.NextCursor)
	r := s.limited(outcome.JoinText(grepText(res.Lines), summary), outcome.Outcome{Kind: outcome.OK}, res.Limited)
	r.Data = d
	return r
}

// grepText prints lines grep-style, with "--" between groups that are not
// adjacent.
func grepText(lines []workspace.GrepLine) string {
	var b strings.Builder
	for i, l := range lines {
		if i > 0 && (l.Path != lines[i-1].Path || l.Line != lines[i-1].Line+1) {
			b.WriteString("--\n")
		}
		sep := "-"
		if l.Match {
			sep = ":"
		}
		b.WriteString(l.Path + sep + strconv.Itoa(l.Line) + sep + l.Text)
		if l.Cut {
			b.WriteString(" [line cut]")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
