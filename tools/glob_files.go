package tools

import (
	"context"
	"strings"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

type globArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	MaxResults int    `json:"max_results"`
	Cursor     string `json:"cursor"`
}

// GlobData is glob_files' structured result.
type GlobData struct {
	Pattern    string   `json:"pattern"`
	Paths      []string `json:"paths"`
	Total      int      `json:"total"`                 // matching paths from this page to the end
	NextCursor string   `json:"next_cursor,omitempty"` // more follow: pass it as cursor
}

const maxPatternChars = 1024

func init() {
	register(func(s *Set) tool {
		return &spec[globArgs]{
			set: s, tname: "glob_files", title: "Find files by name",
			hints: readOnly, data: dataType[GlobData](),
			desc: "Find workspace files whose path matches a glob pattern: * matches within a name, ** any number of directories, " +
				"{a,b} alternatives (e.g. \"**/*.go\", \"src/**/test_*.py\"). The pattern is relative to path (default the workspace " +
				"root, " + s.nc.MountPath + "). Returns matching files, sorted; .git and what .gitignore hides are skipped, links are " +
				"not followed. Every match is found; a large result comes in pages: the answer then gives a cursor to pass back for the next page.",
			schema: obj([]string{"pattern"}, map[string]*prop{
				"pattern":     str("The glob pattern, relative to path.", 1, maxPatternChars),
				"path":        str("The directory to search: relative to the workspace, or under "+s.nc.MountPath+"; default the root.", 0, maxPathChars),
				"max_results": integer("The most paths on this page (default: as many as fit a page).", 1, maxPageItems),
				"cursor":      str("The cursor a previous page returned, with the same other arguments: shows the next page.", 0, maxCursorChars),
			}),
			perms: func(a *globArgs) ([]string, error) {
				scope, err := s.globScope(a.Pattern, a.Path)
				if err != nil {
					return nil, err
				}
				return []string{permRead + s.model(scope)}, nil
			},
			run: s.globFiles,
		}
	})
}

func (s *Set) globFiles(_ context.Context, a *globArgs) Result {
	q := *a
	q.Cursor = ""
	query := cursorQuery("glob_files", q)
	after, err := openCursor(query, a.Cursor)
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	res, err := s.sb.Workspace().GlobFiles(a.Pattern, workspace.GlobOptions{Base: a.Path, MaxResults: a.MaxResults, After: after})
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	d := &GlobData{Pattern: a.Pattern, Paths: res.Paths, Total: res.Total, NextCursor: sealCursor(query, res.Next)}
	text := strings.Join(res.Paths, "\n")
	if d.NextCursor != "" {
		text = outcome.JoinText(text, outcome.GlobPage(len(res.Paths), res.Total, d.NextCursor))
	}
	r := s.limited(text, outcome.Outcome{Kind: outcome.OK}, res.Limited)
	r.Data = d
	return r
}
