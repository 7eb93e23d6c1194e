package tools

import (
	"testing"

	"github.com/ringfence/ringfence/internal/workspace"
)

// FuzzCursor: a sealed cursor opens to what was sealed, under its own
// query only; any other string — made up, or a real one for another
// query — is refused, and nothing panics.
func FuzzCursor(f *testing.F) {
	f.Add("src/a.go", 12, "AAAA", []byte(`{"pattern":"x"}`))
	f.Add("", -1, "", []byte(`{}`))
	f.Add("a\x00b", 1<<62, "!!", []byte("\xff"))
	f.Fuzz(func(t *testing.T, path string, line int, tok string, query []byte) {
		c := &workspace.Cursor{Path: path, Line: line}
		sealed := sealCursor(query, c)
		got, err := openCursor(query, sealed)
		if err != nil || got.Path != path || got.Line != line {
			t.Fatalf("round trip: %+v %v", got, err)
		}
		if _, err := openCursor(append(query, 'x'), sealed); err == nil {
			t.Fatal("a cursor opened under another query")
		}
		if tok != "" && tok != sealed {
			if _, err := openCursor(query, tok); err == nil {
				t.Fatalf("a made-up cursor %q opened", tok)
			}
		}
	})
}
