package run

import (
	"os"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/status"
)

// heldPipe is the read end of a pipe holding what write wrote; its write
// end stays open until the test ends, as one held by an escaped process.
func heldPipe(t *testing.T, write func(w *os.File) error) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := write(w); err != nil {
		t.Fatal(err)
	}
	return r
}

// A reader that had not run when the grace ended (a saturated supervisor)
// still returns everything the dead tree wrote, though a write end is
// still held open (something that escaped). The control ends the grace by
// closing the read end, as waitCopies did: the output is gone.
func TestGraceKeepsBufferedOutput(t *testing.T) {
	const out = "session22call10token\n"
	read := func(end func(*os.File)) (string, time.Duration) {
		r := heldPipe(t, func(w *os.File) error { _, err := w.WriteString(out); return err })
		end(r) // the grace ends before the reader first runs
		defer r.Close()
		c := newCapture(1<<20, nil, nil)
		begin := time.Now()
		drain(newGraceReader(r), c)
		got, _ := c.result()
		return string(got), time.Since(begin)
	}
	if got, _ := read(func(r *os.File) { r.Close() }); got != "" {
		t.Fatalf("control: closing the end kept %q; the test cannot tell", got)
	}
	got, took := read(func(r *os.File) { endGrace([]*os.File{r}) })
	if got != out {
		t.Fatalf("after the grace the reader got %q, want %q", got, out)
	}
	if took > time.Second {
		t.Errorf("the reader took %v after the grace: it waited for the held write end", took)
	}
}

// The same for a reader blocked in read when the grace ends: it stops
// at once with what arrived.
func TestGraceEndsABlockedReader(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	c := newCapture(1<<20, nil, nil)
	done := make(chan struct{})
	go func() { drain(newGraceReader(r), c); close(done) }()
	if _, err := w.WriteString("early\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	endGrace([]*os.File{r})
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a blocked reader did not stop when the grace ended")
	}
	if got, _ := c.result(); string(got) != "early\n" {
		t.Fatalf("got %q", got)
	}
}

// The status channel: an "exited" record written before the grace ended
// is read, so a run that succeeded never reads as a runner failure. The
// control closes the end instead: the records are lost.
func TestGraceKeepsTheStatusRecord(t *testing.T) {
	code := 0
	records := func(w *os.File) error {
		for _, e := range []status.Event{{Kind: status.Exec}, {Kind: status.Started, Pid: 2}, {Kind: status.Exited, ExitCode: &code}} {
			if err := status.Write(w, e); err != nil {
				return err
			}
		}
		return nil
	}
	read := func(end func(*os.File)) status.Summary {
		r := heldPipe(t, records)
		end(r)
		defer r.Close()
		return status.Read(newGraceReader(r))
	}
	if sum := read(func(r *os.File) { r.Close() }); sum.Exit != nil {
		t.Fatalf("control: closing the end kept the exit record; the test cannot tell")
	}
	sum := read(func(r *os.File) { endGrace([]*os.File{r}) })
	if !sum.Started || sum.Exit == nil || sum.Exit.ExitCode == nil || *sum.Exit.ExitCode != 0 {
		t.Fatalf("summary %+v: the records written before the grace ended were lost", sum)
	}
}

// After the grace, a reader does not follow a writer that goes on (an
// escaped process): it stops after its bound (DrainMax; 1,000 bytes here)
// though the pipe holds more.
func TestGraceReadsNoMoreThanItsBound(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.Write(make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	endGrace([]*os.File{r})
	c := newCapture(1<<20, nil, nil)
	drain(&graceReader{f: r, left: 1000}, c)
	if got, _ := c.result(); len(got) != 1000 {
		t.Fatalf("read %d bytes after the grace, want the bound, 1000", len(got))
	}
	if newGraceReader(r).left != DrainMax {
		t.Fatal("a new reader's bound is not DrainMax")
	}
}
