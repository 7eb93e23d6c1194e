package tools

import (
	"context"
	"strconv"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

type readArgs struct {
	Path     string `json:"path"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
	MaxBytes int64  `json:"max_bytes"`
}

// ReadData is read_file's structured result: the range and totals, never
// the text again — the numbered lines go once, as the result's text, so a
// large file is not encoded and sent twice.
type ReadData struct {
	Path      string `json:"path"`
	Size      int64  `json:"size"`       // the file's bytes
	FirstLine int    `json:"first_line"` // the number of the first line shown
	Lines     int    `json:"lines"`      // lines shown
	More      bool   `json:"more"`       // the file goes on after them
	Binary    bool   `json:"binary"`     // not shown: a binary file
}

const maxLines = 1 << 30

func init() {
	register(func(s *Set) tool {
		return &spec[readArgs]{
			set: s, tname: "read_file", title: "Read a file",
			hints: readOnly, data: dataType[ReadData](),
			desc: "Read a text file in the workspace. Paths are relative to the workspace, or absolute under " + s.nc.MountPath +
				" (e.g. " + s.nc.MountPath + "/src/main.go); nothing outside the workspace can be read. Returns the lines numbered " +
				"like `cat -n`. A file larger than max_bytes (default and most " + strconv.FormatInt(s.opts.MaxReadBytes, 10) +
				" bytes) is refused with its size, never cut: read part of it with offset (first line, 1-based) and limit (number of lines). " +
				"Binary files are reported, not shown; use read_media for images and PDFs.",
			schema: obj([]string{"path"}, map[string]*prop{
				"path":      str("The file: relative to the workspace, or under "+s.nc.MountPath+".", 1, maxPathChars),
				"offset":    integer("The first line to return, 1-based.", 1, maxLines),
				"limit":     integer("The most lines to return.", 1, maxLines),
				"max_bytes": integer("The most bytes to return; a larger file (or range) is refused, not cut.", 1, s.opts.MaxReadBytes),
			}),
			perms: func(a *readArgs) ([]string, error) { return s.declare(permRead, a.Path, false) },
			run:   s.readFile,
		}
	})
}

func (s *Set) readFile(_ context.Context, a *readArgs) Result {
	limit := a.MaxBytes
	if limit == 0 {
		limit = s.opts.MaxReadBytes
	}
	res, err := s.sb.Workspace().ReadFile(a.Path, workspace.ReadOptions{Offset: a.Offset, Limit: a.Limit, MaxBytes: limit})
	if err != nil {
		o := outcomeOf(err)
		if o.Kind == outcome.OverBudget && o.Bound == "maxBytes" {
			o.Bound = "max_bytes" // the bound the model sets is named as its parameter
		}
		return s.failed(o)
	}
	d := &ReadData{Path: res.Path, Size: res.Size, FirstLine: res.FirstLine, Lines: res.Lines, More: res.More, Binary: res.Binary}
	text := res.Text
	switch {
	case res.Binary:
		text = outcome.BinaryFile(res.Path, res.Size)
	case res.Size == 0:
		text = outcome.Empty(res.Path)
	case res.More:
		text = outcome.JoinText(text, outcome.MoreLines(res.FirstLine, res.Lines))
	}
	return Result{Text: text, Outcome: outcome.Outcome{Kind: outcome.OK, Path: res.Path}, Data: d}
}
