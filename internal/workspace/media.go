package workspace

import (
	"bytes"

	"github.com/ringfence/ringfence/outcome"
)

// Media is a file the model may look at: an image or a PDF, by its bytes.
type Media struct {
	Path string // model path
	MIME string
	Data []byte
}

// sniffMedia names the type by magic bytes, never by extension: a name is
// the model's to choose, the first bytes are what a viewer will parse.
func sniffMedia(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte{0xff, 0xd8, 0xff}):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")):
		return "image/webp"
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return "application/pdf"
	}
	return ""
}

// ReadMedia returns an image (PNG, JPEG, GIF, WebP) or a PDF, whole, when
// it is at most maxBytes (required, positive); larger is over-budget, any
// other content unknown-media.
func (w *Workspace) ReadMedia(path string, maxBytes int64) (Media, error) {
	if maxBytes <= 0 {
		return Media{}, usage("ReadMedia needs a positive maxBytes")
	}
	f, err := w.openRegular(path)
	if err != nil {
		return Media{}, err
	}
	defer f.close()
	data, err := w.readBounded(f, maxBytes)
	if err != nil {
		return Media{}, err
	}
	mime := sniffMedia(data)
	if mime == "" {
		return Media{}, fail(outcome.Outcome{Kind: outcome.UnknownMedia, Path: w.model(f.rel)})
	}
	return Media{Path: w.model(f.rel), MIME: mime, Data: data}, nil
}
