package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
)

// Filter selects records; an empty field matches every record.
type Filter struct {
	Session string
	Tool    string
	Outcome string
}

func (f Filter) match(r Record) bool {
	return (f.Session == "" || f.Session == r.Session) &&
		(f.Tool == "" || f.Tool == r.Tool) &&
		(f.Outcome == "" || f.Outcome == r.Outcome)
}

// maxLine bounds one record line when reading (records are far smaller:
// every free-text field is cut at MaxText).
const maxLine = 4 << 20

// LineError is a line of the trail that is not a record.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("audit: line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Read returns the records of r that match f, in order. Blank lines are
// skipped; any other line that is not a record is an error naming it.
func Read(r io.Reader, f Filter) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var out []Record
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			return out, &LineError{Line: n, Err: err}
		}
		if f.match(rec) {
			out = append(out, rec)
		}
	}
	return out, sc.Err()
}
