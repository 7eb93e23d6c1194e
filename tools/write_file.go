package tools

import (
	"context"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func init() {
	register(func(s *Set) tool {
		return &spec[writeArgs]{
			set: s, tname: "write_file", title: "Write a file",
			hints: writeHints, data: dataType[WriteData](),
			desc: "Create or replace a file in the workspace with the given text, atomically (a reader never sees half a file). " +
				"Paths are relative to the workspace, or absolute under " + s.nc.MountPath + "; missing parent directories are created. " +
				"Only paths the sandbox policy makes writable can be written: a write elsewhere is refused, or, where a person " +
				"reviews such requests, asks them first. A file with another hard link is never replaced. " +
				"To change part of a file, prefer edit_file.",
			schema: obj([]string{"path", "content"}, map[string]*prop{
				"path":    str("The file: relative to the workspace, or under "+s.nc.MountPath+".", 1, maxPathChars),
				"content": str("The file's complete new text.", 0, s.opts.MaxArgBytes),
			}),
			perms: func(a *writeArgs) ([]string, error) { return s.declare(permWrite, a.Path, false) },
			run: func(ctx context.Context, a *writeArgs) Result {
				what := "write " + outcome.Plural(int64(len(a.Content)), "byte", "bytes") + " to"
				return s.write(ctx, "write_file", a.Path, what, func(w *workspace.Workspace) (workspace.WriteResult, error) {
					return w.WriteFile(a.Path, []byte(a.Content))
				})
			},
		}
	})
}
