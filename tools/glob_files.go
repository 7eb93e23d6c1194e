package tools

import (
	"context"
	"strings"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// GlobData is glob_files' structured result.
type GlobData struct {
	Pattern string   `json:"pattern"`
	Paths   []string `json:"paths"`
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
				"not followed, and long results stop at a bound and say so.",
			schema: obj([]string{"pattern"}, map[string]*prop{
				"pattern": str("The glob pattern, relative to path.", 1, maxPatternChars),
				"path":    str("The directory to search: relative to the workspace, or under "+s.nc.MountPath+"; default the root.", 0, maxPathChars),
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
	res, err := s.sb.Workspace().GlobFiles(a.Pattern, workspace.GlobOptions{Base: a.Path})
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	text := strings.Join(res.Paths, "\n")
	r := s.limited(text, outcome.Outcome{Kind: outcome.OK}, res.Limited)
	r.Data = &GlobData{Pattern: a.Pattern, Paths: res.Paths}
	return r
}
