package workspace

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ringfence/ringfence/outcome"
)

// ReadOptions bounds one read_file call.
type ReadOptions struct {
	// Offset is the number of the first line returned (1-based; 0 means 1).
	Offset int
	// Limit is the most lines returned; 0 means to the end of the file.
	Limit int
	// MaxBytes is required and positive: the most file bytes an unranged
	// read returns, or output bytes a ranged one does. Over it the read is
	// refused (over-budget), never cut.
	MaxBytes int64
	// Raw returns the file's bytes as they are, without line numbers.
	// Offset and Limit must then be zero.
	Raw bool
}

// ReadResult is what read_file returns.
type ReadResult struct {
	Path      string // the model path asked for
	Text      string // numbered lines ("%6d\t" then the line), cat -n style
	Data      []byte // Raw mode: the file's bytes
	Binary    bool   // the file looks binary; Text is then empty
	Size      int64  // the file's size in bytes
	FirstLine int    // the number of Text's first line
	Lines     int    // how many lines Text holds
	More      bool   // a ranged read stopped before the end of the file
}

const sniffLen = 8 << 10

// ReadFile reads one regular file beneath the root. See ReadOptions for the
// bound; binary files are reported as Binary, not dumped as text.
func (w *Workspace) ReadFile(path string, opts ReadOptions) (ReadResult, error) {
	if err := opts.check(); err != nil {
		return ReadResult{}, err
	}
	f, err := w.openRegular(path)
	if err != nil {
		return ReadResult{}, err
	}
	defer f.close()
	res := ReadResult{Path: w.model(f.rel), Size: f.st.size, FirstLine: max(opts.Offset, 1)}
	if opts.Limit > 0 || opts.Offset > 1 {
		return w.readRange(f, opts, res)
	}
	if opts.Raw {
		data, err := w.readBounded(f, opts.MaxBytes)
		res.Data, res.Binary = data, looksBinary(data)
		return res, err
	}
	// The bytes only live until they are numbered: a pooled buffer
	// saves clearing a fresh one per call.
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	data, err := w.readInto(f, opts.MaxBytes, bp)
	if err != nil {
		return ReadResult{}, err
	}
	switch {
	case looksBinary(data):
		res.Binary = true
	default:
		res.Text, res.Lines = numberLines(data, 1)
	}
	return res, nil
}

func (o ReadOptions) check() error {
	switch {
	case o.MaxBytes <= 0:
		return usage("ReadOptions.MaxBytes must be positive")
	case o.Offset < 0 || o.Limit < 0:
		return usage("ReadOptions.Offset and Limit must not be negative")
	case o.Raw && (o.Offset != 0 || o.Limit != 0):
		return usage("ReadOptions.Raw takes no line range")
	}
	return nil
}

// readBounded reads the whole file, refusing it when it holds more than
// limit bytes. The size from fstat is checked first; reading one byte
// past the limit catches a file that grew since.
func (w *Workspace) readBounded(f opened, limit int64) ([]byte, error) {
	if f.st.size > limit {
		return nil, w.overBudget(f.rel, limit, f.st.size)
	}
	return w.readInto(f, limit, new([]byte))
}

// readInto is readBounded into *bp, grown as needed.
func (w *Workspace) readInto(f opened, limit int64, bp *[]byte) ([]byte, error) {
	if f.st.size > limit {
		return nil, w.overBudget(f.rel, limit, f.st.size)
	}
	if int64(cap(*bp)) < f.st.size+1 {
		*bp = make([]byte, f.st.size+1)
	}
	buf := (*bp)[:f.st.size+1]
	n, err := sysRead(f.fd, buf)
	if err != nil {
		return nil, fail(ioFailure(w.model(f.rel), "the file cannot be read"))
	}
	if int64(n) > limit {
		return nil, w.overBudget(f.rel, limit, int64(n))
	}
	return buf[:n], nil
}

func (w *Workspace) overBudget(rel string, limit, seen int64) error {
	return fail(outcome.Outcome{Kind: outcome.OverBudget, Path: w.model(rel), Bound: "maxBytes", Limit: limit, Observed: seen})
}

// readRange streams the file to the lines asked for, holding at most
// MaxBytes of output; lines before Offset are skipped without being kept.
func (w *Workspace) readRange(f opened, opts ReadOptions, res ReadResult) (ReadResult, error) {
	r := bufio.NewReaderSize(fdReader(f.fd), 64<<10)
	if head, _ := r.Peek(sniffLen); looksBinary(head) {
		res.Binary = true
		return res, nil
	}
	var out []byte
	n := 0
	for line := 1; ; line++ {
		text, err := r.ReadSlice('\n')
		got := len(text) > 0
		for err == bufio.ErrBufferFull { // a line longer than the buffer
			if line >= res.FirstLine {
				if out = appendNumbered(out, line, text); int64(len(out)) > opts.MaxBytes {
					return ReadResult{}, w.overBudget(f.rel, opts.MaxBytes, int64(len(out)))
				}
			}
			text, err = r.ReadSlice('\n')
		}
		if (got || len(text) > 0) && line >= res.FirstLine {
			out = appendNumbered(out, line, text)
			n++
		}
		if int64(len(out)) > opts.MaxBytes {
			return ReadResult{}, w.overBudget(f.rel, opts.MaxBytes, int64(len(out)))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return ReadResult{}, fail(ioFailure(w.model(f.rel), "the file cannot be read"))
		}
		if opts.Limit > 0 && n == opts.Limit {
			_, perr := r.Peek(1)
			res.More = perr == nil
			break
		}
	}
	res.Text, res.Lines = string(out), n
	return res, nil
}

// appendNumbered adds a line, or a piece of one, to out; only a piece that
// starts a line carries the number.
func appendNumbered(out []byte, line int, text []byte) []byte {
	if len(out) == 0 || out[len(out)-1] == '\n' {
		out = appendNum(out, line)
	}
	return append(out, text...)
}

func appendNum(out []byte, line int) []byte {
	var num [20]byte
	s := strconv.AppendInt(num[:0], int64(line), 10)
	for i := len(s); i < 6; i++ {
		out = append(out, ' ')
	}
	out = append(out, s...)
	return append(out, '\t')
}

// numberLines formats data cat -n style, starting at line first.
func numberLines(data []byte, first int) (string, int) {
	if len(data) == 0 {
		return "", 0
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	var out strings.Builder // grows without clearing, and String() copies nothing
	out.Grow(len(data) + lines*8)
	var num []byte
	n := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		end := len(data)
		if i >= 0 {
			end = i + 1
		}
		num = appendNum(num[:0], first+n)
		out.Write(num)
		out.Write(data[:end])
		data = data[end:]
		n++
	}
	return out.String(), n
}

// looksBinary: a NUL in the first 8 KiB, or more than one byte in twenty
// of it not valid UTF-8 (a rune cut by the sample's end does not count).
func looksBinary(data []byte) bool {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 && !(len(data)-i < utf8.UTFMax && !utf8.FullRune(data[i:])) {
			bad++
		}
		i += size
	}
	return bad*20 > len(data)
}

type fdReader int

func (r fdReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, err := readOnce(int(r), b)
	if n == 0 && err == nil {
		return 0, io.EOF
	}
	return n, err
}
