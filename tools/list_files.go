package tools

import (
	"context"
	"strings"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

type listArgs struct {
	Path  string `json:"path"`
	Depth int    `json:"depth"`
}

// ListData is list_files' structured result.
type ListData struct {
	Path    string            `json:"path"`
	Entries []workspace.Entry `json:"entries"`
}

const maxDepth = 16

func init() {
	register(func(s *Set) tool {
		return &spec[listArgs]{
			set: s, tname: "list_files", title: "List a directory",
			hints: readOnly, data: dataType[ListData](),
			desc: "List a workspace directory (default: the workspace root, " + s.nc.MountPath + ") to a depth (default 1: its " +
				"entries only). Directories end with \"/\"; links are listed, never followed. .git and what .gitignore hides are " +
				"skipped. Long listings stop at a bound and say so; list a subdirectory to see more.",
			schema: obj(nil, map[string]*prop{
				"path":  str("The directory: relative to the workspace, or under "+s.nc.MountPath+"; default the root.", 0, maxPathChars),
				"depth": integer("How many levels to descend; 1 lists the directory's own entries.", 1, maxDepth),
			}),
			perms: func(a *listArgs) ([]string, error) { return s.declare(permRead, a.Path, true) },
			run:   s.listFiles,
		}
	})
}

func (s *Set) listFiles(_ context.Context, a *listArgs) Result {
	res, err := s.sb.Workspace().ListFiles(a.Path, workspace.ListOptions{Depth: a.Depth})
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	var b strings.Builder
	for _, e := range res.Entries {
		b.WriteString(entryLine(e))
		b.WriteByte('\n')
	}
	text := b.String()
	if len(res.Entries) == 0 {
		text = outcome.Empty(res.Path)
	}
	r := s.limited(text, outcome.Outcome{Kind: outcome.OK, Path: res.Path}, res.Limited)
	r.Data = &ListData{Path: res.Path, Entries: res.Entries}
	return r
}

func entryLine(e workspace.Entry) string {
	switch e.Type {
	case "directory":
		return e.Path + "/"
	case "file":
		return e.Path
	}
	return e.Path + " (" + e.Type + ")"
}

// limited makes the result of a walk: OK, or the first bound reached as
// the outcome (narrated after the content) with any further bounds
// narrated in the text.
func (s *Set) limited(text string, ok outcome.Outcome, lim []outcome.Outcome) Result {
	if len(lim) == 0 {
		return Result{Text: text, Outcome: ok}
	}
	for _, o := range lim[1:] {
		text = outcome.JoinText(text, s.narrate(o))
	}
	return Result{Text: text, Outcome: lim[0]}
}
