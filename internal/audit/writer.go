package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sync"
)

// Writer appends records as JSON lines. It is safe for concurrent use; each
// record is one line, never interleaved with another.
type Writer struct {
	mu  sync.Mutex
	w   *bufio.Writer
	c   io.Closer // the file, when Open made it
	f   *os.File
	err error // the first write error, kept: a trail with a hole says so
}

// Open appends to the file at path, creating it 0600 (command lines may
// hold what a person would not share).
func Open(path string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	w := NewWriter(f)
	w.c, w.f = f, f
	return w, nil
}

// NewWriter writes records to w; Close flushes but does not close w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write appends one record and flushes it to the underlying writer, so a
// reader (tail -f, ringfence audit) sees every finished call.
func (w *Writer) Write(r Record) error {
	if w == nil {
		return nil
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	line = append(line, '\n')
	if _, err := w.w.Write(line); err != nil {
		w.err = err
		return err
	}
	if err := w.w.Flush(); err != nil {
		w.err = err
	}
	return w.err
}

// Close flushes, syncs and closes the file Open made.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.w.Flush()
	if w.f != nil {
		err = errors.Join(err, w.f.Sync())
	}
	if w.c != nil {
		err = errors.Join(err, w.c.Close())
		w.c, w.f = nil, nil
	}
	return err
}
