package process

import (
	"context"
	"sync"
	"time"

	"github.com/ringfence/ringfence/internal/sandbox"
)

// stdinGate lets one write to a process's stdin be in flight at a time.
// A write to a process that does not read blocks until its pipe has room,
// and a call whose context ends first must return without waiting for
// it; the write itself cannot be interrupted, so it goes on in the
// background holding its chunk. Without the gate every such abandoned
// call left one more chunk (up to wire.MaxStdinChunk) behind — memory a client
// could grow without bound with sequential short-deadline calls — and
// the abandoned writes could reach the pipe in any order. With it, a call
// waits (within its context) for the write before it to finish, so each
// process holds at most one chunk and its input arrives in call order.
// The zero value is ready.
type stdinGate struct {
	once sync.Once
	ch   chan struct{} // a token: held by the write in flight
}

func (g *stdinGate) token() chan struct{} {
	g.once.Do(func() { g.ch = make(chan struct{}, 1) })
	return g.ch
}

// write writes in to p's stdin. It returns ctx's error when ctx ends
// before the write could start or finish, errEnded when p ends first, and
// the write's own error otherwise.
func (g *stdinGate) write(ctx context.Context, p *sandbox.Process, in []byte) error {
	tok := g.token()
	select {
	case tok <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	case <-p.Done():
		return errEnded
	}
	done := make(chan error, 1)
	go func() {
		_, err := p.Write(in)
		<-tok // released when the write returns, whoever waits for it
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-p.Done():
		// The write may have landed just before the end (the process
		// read its last input and exited, as `head -c N | md5sum` does):
		// select picks among ready cases at random, so give the write a
		// moment to report before calling it lost. A write still blocked
		// (a background child holds the pipe without reading) stays lost.
		t := time.NewTimer(endGrace)
		defer t.Stop()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return errEnded
		}
	}
}

// endGrace is how long a write may take to report after its process
// ended before it is called lost.
const endGrace = time.Second

// errEnded: the process ended before the write could be done.
var errEnded = errEndedT{}

type errEndedT struct{}

func (errEndedT) Error() string { return "the process ended before reading its input" }
