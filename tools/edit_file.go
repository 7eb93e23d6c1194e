package tools

import (
	"context"

	"github.com/ringfence/ringfence/internal/workspace"
)

type editArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func init() {
	register(func(s *Set) tool {
		return &spec[editArgs]{
			set: s, tname: "edit_file", title: "Edit a file",
			hints: editHints, data: dataType[WriteData](),
			desc: "Replace exact text in a workspace file: old_string must appear in the file exactly (whitespace included) and " +
				"exactly once, unless replace_all is true; read the file first to copy it. The file is rewritten atomically. " +
				"Paths are relative to the workspace, or absolute under " + s.nc.MountPath + ". The same write policy as " +
				"write_file applies: a path the policy does not make writable is refused, or a person is asked first.",
			schema: obj([]string{"path", "old_string", "new_string"}, map[string]*prop{
				"path":        str("The file: relative to the workspace, or under "+s.nc.MountPath+".", 1, maxPathChars),
				"old_string":  str("The exact text to replace.", 1, s.opts.MaxArgBytes),
				"new_string":  str("The text to put in its place (may be empty).", 0, s.opts.MaxArgBytes),
				"replace_all": boolean("Replace every occurrence instead of requiring exactly one."),
			}),
			perms: func(a *editArgs) ([]string, error) { return s.declare(permWrite, a.Path, false) },
			run: func(ctx context.Context, a *editArgs) Result {
				return s.write(ctx, "edit_file", a.Path, "edit", func(w *workspace.Workspace) (workspace.WriteResult, error) {
					return w.EditFile(a.Path, a.OldString, a.NewString, a.ReplaceAll)
				})
			},
		}
	})
}
