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
}

// GrepData is grep_files' structured result.
type GrepData struct {
	Pattern string               `json:"pattern"`
	Lines   []workspace.GrepLine `json:"lines"`
	Matches int                  `json:"matches"`
	Files   int                  `json:"files"`
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
				"Binary files, .git and what .gitignore hides are skipped; long lines are cut; the search stops at max_matches " +
				"and other bounds and says so.",
			schema: obj([]string{"pattern"}, map[string]*prop{
				"pattern":          str("The regular expression.", 1, maxPatternChars),
				"path":             str("A directory or file: relative to the workspace, or under "+s.nc.MountPath+"; default the root.", 0, maxPathChars),
				"glob":             str("Only search files matching this glob (by name, or by path when it holds /).", 0, maxPatternChars),
				"case_insensitive": boolean("Match letters in either case."),
				"context_lines":    integer("Lines of context shown before and after each match.", 0, maxContextLines),
				"max_matches":      integer("The most matching lines to show.", 1, workspace.DefaultMaxMatches),
			}),
			perms: func(a *grepArgs) ([]string, error) { return s.declare(permRead, a.Path, true) },
			run:   s.grepFiles,
		}
	})
}

func (s *Set) grepFiles(_ context.Context, a *grepArgs) Result {
	res, err := s.sb.Workspace().GrepFiles(a.Pattern, workspace.GrepOptions{
		Path: a.Path, Glob: a.Glob, CaseInsensitive: a.CaseInsensitive,
		ContextLines: a.ContextLines, MaxMatches: a.MaxMatches,
	})
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	for i := range res.Lines {
		res.Lines[i].Text = s.scrub(res.Lines[i].Text)
	}
	text := joinText(grepText(res.Lines), plural(int64(res.Matches), "matching line", "matching lines")+" in "+
		plural(int64(res.Files), "file", "files")+".")
	r := s.limited(text, outcome.Outcome{Kind: outcome.OK}, res.Limited)
	r.Data = &GrepData{Pattern: a.Pattern, Lines: res.Lines, Matches: res.Matches, Files: res.Files}
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
