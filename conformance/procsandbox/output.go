package procsandbox

import (
	"bytes"
	"io"
	"sync"
)

// bounded keeps the first max bytes of a stream and counts the rest, so a
// command cannot grow the caller's memory; live, when set, sees it all.
type bounded struct {
	mu   sync.Mutex
	max  int
	buf  bytes.Buffer
	cut  int64
	live io.Writer
}

func newBounded(max int, live io.Writer) *bounded { return &bounded{max: max, live: live} }

func (b *bounded) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.live != nil {
		b.live.Write(p)
	}
	keep := min(len(p), b.max-b.buf.Len())
	b.buf.Write(p[:keep])
	b.cut += int64(len(p) - keep)
	return len(p), nil
}

func (b *bounded) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// seen is every byte written, kept or cut (zero when nothing was cut).
func (b *bounded) seen() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut == 0 {
		return 0
	}
	return int64(b.buf.Len()) + b.cut
}
