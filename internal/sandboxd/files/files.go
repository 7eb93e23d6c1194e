package files

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"time"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

// get answers GET and HEAD: a regular file's bytes, streamed (Range and
// conditional requests as net/http serves them), or a directory's listing.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	p := h.modelPath(r)
	f, info, err := h.ws.Open(p)
	if o, ok := outcome.Of(err); ok && o.Kind == outcome.IsADirectory {
		h.list(w, r, p)
		return
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer f.Close()
	if info.Links > 1 && !h.opts.AllowHardLinkReads {
		h.fail(w, r, workspace.Fail(outcome.Outcome{Kind: outcome.DeniedByPolicy, Path: info.Path,
			Axis: "read", Reason: workspace.ReasonAliased}))
		return
	}
	h.ok(w, outcome.Outcome{Kind: outcome.OK, Path: info.Path})
	w.Header().Set("Content-Type", "application/octet-stream")
	http.ServeContent(w, r, "", info.ModTime, f)
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request, p string) {
	l, err := h.ws.ReadDir(p, h.opts.MaxListEntries)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	out := DirectoryListing{Path: l.Path, Entries: make([]FileEntry, 0, len(l.Entries))}
	for _, e := range l.Entries {
		typ := "file"
		if e.Dir {
			typ = "directory"
		}
		out.Entries = append(out.Entries, FileEntry{Name: e.Name, Size: e.Size, Type: typ,
			ModifiedAt: e.ModTime.UTC().Format(time.RFC3339), Mode: fmt.Sprintf("%04o", uint32(e.Perm))})
	}
	o := outcome.Outcome{Kind: outcome.OK, Path: l.Path}
	if l.Limited != nil {
		o = *l.Limited
	}
	h.ok(w, o)
	writeJSON(w, http.StatusOK, out)
}

// put writes a file atomically from the raw body or the "file" part of a
// multipart/form-data body, bounded by MaxUploadBytes.
func (h *Handler) put(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	mode, ok := parseMode(q.Get("mode"), q.Has("mode"))
	if !ok {
		h.badRequest(w, fmt.Sprintf("mode %q must match ^0[0-7]{3}$", q.Get("mode")))
		return
	}
	max := h.opts.MaxUploadBytes
	if r.ContentLength > max+multipartSlack {
		h.fail(w, r, workspace.Fail(outcome.Outcome{Kind: outcome.OverBudget, Path: h.shownPath(r),
			Bound: "maxBytes", Limit: max, Observed: r.ContentLength}))
		return
	}
	body := &tracked{r: http.MaxBytesReader(w, r.Body, max+multipartSlack), rc: http.NewResponseController(w), idle: h.opts.UploadIdle}
	src, err := fileBody(r, body)
	if err != nil {
		h.badRequest(w, err.Error())
		return
	}
	res, err := h.ws.WriteStream(h.modelPath(r), src, workspace.StreamOptions{Perm: fs.FileMode(mode), MaxBytes: max})
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(body.err, &tooBig) {
			err = workspace.Fail(outcome.Outcome{Kind: outcome.OverBudget, Path: h.shownPath(r),
				Bound: "maxBytes", Limit: max})
		}
		h.fail(w, r, err)
		return
	}
	h.ok(w, outcome.Outcome{Kind: outcome.OK, Path: res.Path})
	w.WriteHeader(http.StatusNoContent)
}

// multipartSlack is what a multipart body may hold beyond the file: the
// boundaries and part headers (net/http caps those itself).
const multipartSlack = 1 << 20

// shownPath is the request's path for an outcome the fence did not make.
func (h *Handler) shownPath(r *http.Request) string {
	p := h.modelPath(r)
	if p == "" {
		return h.ws.MountPath()
	}
	if p[0] == '/' {
		return p
	}
	return h.ws.MountPath() + "/" + p
}

// tracked remembers the last error its reader gave, so a body cut by the
// size bound can be told from one the client abandoned; and it moves the
// connection's read deadline idle ahead before each read, so a body that
// stops arriving is cut (a slow but moving upload is not).
type tracked struct {
	r    io.Reader
	err  error
	rc   *http.ResponseController
	idle time.Duration
}

func (t *tracked) Read(b []byte) (int, error) {
	if t.rc != nil && t.idle > 0 {
		_ = t.rc.SetReadDeadline(time.Now().Add(t.idle))
	}
	n, err := t.r.Read(b)
	if err != nil && !errors.Is(err, io.EOF) {
		t.err = err
	}
	return n, err
}

// fileBody is the file's bytes: the body, or its multipart "file" part.
func fileBody(r *http.Request, body io.Reader) (io.Reader, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return body, nil
	}
	if params["boundary"] == "" {
		return nil, errors.New("a multipart body needs a boundary")
	}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, errors.New(`the multipart body has no "file" part`)
		}
		if err != nil {
			return nil, errors.New("the multipart body is malformed")
		}
		if part.FormName() == "file" {
			return part, nil
		}
		_ = part.Close()
	}
}

// delete removes a file or directory; recursive=true removes a tree.
func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	recursive, ok := parseRecursive(q.Get("recursive"), q.Has("recursive"))
	if !ok {
		h.badRequest(w, fmt.Sprintf("recursive %q must be a boolean", q.Get("recursive")))
		return
	}
	if err := h.ws.Remove(h.modelPath(r), recursive); err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, outcome.Outcome{Kind: outcome.OK, Path: h.shownPath(r)})
	w.WriteHeader(http.StatusNoContent)
}
