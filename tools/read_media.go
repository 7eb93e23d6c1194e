package tools

import (
	"context"

	"github.com/ringfence/ringfence/outcome"
)

type mediaArgs struct {
	Path string `json:"path"`
}

// MediaData is read_media's structured result (the bytes are in
// Result.Media).
type MediaData struct {
	Path  string `json:"path"`
	MIME  string `json:"mime"`
	Bytes int    `json:"bytes"`
}

func init() {
	register(func(s *Set) tool {
		return &spec[mediaArgs]{
			set: s, tname: "read_media", title: "Read an image or PDF",
			hints: readOnly, data: dataType[MediaData](),
			desc: "Look at an image (PNG, JPEG, GIF, WebP) or a PDF in the workspace: returns it as typed content you can see. " +
				"The type is read from the file's bytes, not its name; anything else is refused. Files over " +
				outcome.Plural(s.opts.MaxMediaBytes, "byte", "bytes") + " are refused. Paths are relative to the workspace, or " +
				"absolute under " + s.nc.MountPath + ".",
			schema: obj([]string{"path"}, map[string]*prop{
				"path": str("The file: relative to the workspace, or under "+s.nc.MountPath+".", 1, maxPathChars),
			}),
			perms: func(a *mediaArgs) ([]string, error) { return s.declare(permRead, a.Path, false) },
			run: func(_ context.Context, a *mediaArgs) Result {
				m, err := s.sb.Workspace().ReadMedia(a.Path, s.opts.MaxMediaBytes)
				if err != nil {
					return s.failed(outcomeOf(err))
				}
				return Result{
					Text:    m.Path + " (" + m.MIME + ", " + outcome.Plural(int64(len(m.Data)), "byte", "bytes") + ")",
					Outcome: outcome.Outcome{Kind: outcome.OK, Path: m.Path},
					Data:    &MediaData{Path: m.Path, MIME: m.MIME, Bytes: len(m.Data)},
					Media:   &Media{MIME: m.MIME, Data: m.Data},
				}
			},
		}
	})
}
