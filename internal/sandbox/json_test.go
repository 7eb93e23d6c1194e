package sandbox

import (
	"encoding/json"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/run"
)

// TestResultJSONStable pins the bytes of the two facts the result shares
// with the layers below it (one type each, not copies): the enforcement the
// backend and the supervisor filled in, and the truncation record. Their
// JSON is the stable form of `ringfence run --json`: every field named, in
// this order, both streams always.
func TestResultJSONStable(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"enforcement", Enforcement{Files: confine.FilesPartial, Network: confine.NetLoopbackOnly, Resources: run.ResourcesQuota, Reasons: []string{"r"}, Scratch: "discarded"},
			`{"files":"partial","network":"loopback-only","resources":"quota","reasons":["r"],"scratch":"discarded"}`},
		{"enforcement, nothing optional", Enforcement{Files: confine.FilesNone, Network: confine.NetNone, Resources: run.ResourcesNone},
			`{"files":"none","network":"none","resources":"none"}`},
		{"truncated, one stream", &Truncated{Stderr: 5}, `{"stdout":0,"stderr":5}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.v)
		if err != nil || string(b) != tt.want {
			t.Errorf("%s: %s (%v), want %s", tt.name, b, err, tt.want)
		}
	}
}
