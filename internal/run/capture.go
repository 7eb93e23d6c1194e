package run

import (
	"io"
	"sync"
)

// capture keeps the first limit bytes of a stream, counts every byte seen,
// and passes everything through to an optional live writer. Its memory is
// bounded by limit plus one read buffer, whatever the stream carries.
type capture struct {
	limit  int64
	live   io.Writer // nil, or disabled after its first error
	onOver func()    // called once, the first time the limit is passed

	mu   sync.Mutex
	buf  []byte
	seen int64
	over bool
}

func newCapture(limit int64, live io.Writer, onOver func()) *capture {
	return &capture{limit: limit, live: live, onOver: onOver}
}

// Write never fails: a supervisor must keep draining the pipe so the
// command is never blocked on a full pipe by a slow or broken consumer.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.seen += int64(len(p))
	if room := c.limit - int64(len(c.buf)); room > 0 {
		c.buf = append(c.buf, p[:min(int64(len(p)), room)]...)
	}
	first := !c.over && c.seen > c.limit
	c.over = c.over || first
	live := c.live
	c.mu.Unlock()
	if live != nil {
		if _, err := live.Write(p); err != nil {
			c.mu.Lock()
			c.live = nil
			c.mu.Unlock()
		}
	}
	if first && c.onOver != nil {
		c.onOver()
	}
	return len(p), nil
}

// result returns the captured bytes and, when cut, the total seen (else 0).
func (c *capture) result() ([]byte, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.buf
	if out == nil {
		out = []byte{}
	}
	if c.over {
		return out, c.seen
	}
	return out, 0
}

// drain copies r into c until EOF or a read error (the read end closed).
func drain(r io.Reader, c *capture) {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = c.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}
