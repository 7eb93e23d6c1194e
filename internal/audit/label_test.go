package audit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/outcome"
)

// The trail holds labels, never session ids: a label is stable within the
// process, differs between sessions, and does not contain the id. The
// control is the id itself, which the search below finds when it is there.
func TestTrailHoldsNoSessionID(t *testing.T) {
	ids := []string{"HX3VQ5ZJ2M7N4KQW6Y2D5T3R1A", "0123456789abcdef", "s1"}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i, id := range ids {
		if err := w.Write(sample(i, id, "run_command", outcome.OK)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	trail := buf.String()
	seen := map[string]bool{}
	for i, id := range ids {
		if strings.Contains(trail, `"session":"`+id+`"`) || (len(id) > 4 && strings.Contains(trail, id)) {
			t.Fatalf("the trail holds session id %q:\n%s", id, trail)
		}
		l := SessionLabel(id)
		if l != SessionLabel(id) || !strings.HasPrefix(l, labelPrefix) || seen[l] {
			t.Fatalf("label %q of %q not stable, marked and distinct", l, id)
		}
		seen[l] = true
		recs, err := Read(strings.NewReader(trail), Filter{Session: l})
		if err != nil || len(recs) != 1 || recs[0].Args["command"] != "echo "+string(rune('0'+i)) {
			t.Fatalf("filter by label %q: %v %+v", l, err, recs)
		}
	}
	// Control: a record whose Session is set by hand holds what it is given,
	// so the search above would have found an id written through.
	var ctl bytes.Buffer
	if err := json.NewEncoder(&ctl).Encode(Record{Session: ids[0]}); err != nil || !strings.Contains(ctl.String(), ids[0]) {
		t.Fatalf("control: %v %s", err, ctl.String())
	}
	if SessionLabel("") != "" {
		t.Fatal("an empty id got a label")
	}
}
