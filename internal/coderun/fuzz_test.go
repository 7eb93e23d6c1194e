package coderun

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/outcome"
)

// FuzzNames: whatever names a model sends, the accepted ones are clean
// relative paths inside inputs/ (no "..", no absolute path, no empty or
// dot segment), distinct, never the manifest, never a directory of
// another; and the manifest built from them round-trips through JSON.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"a.csv", "a\nb/c", "../x", "/etc/passwd", "a\na", "a\na/b", "manifest.json",
		"x/../y\ny", "./a//b", "~/x", "C:x", "a\\b", "é/ü.txt", "a\x00b", strings.Repeat("a/", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		inputs := ins(strings.Split(joined, "\n")...)
		names, err := CheckNames(inputs, 64)
		if err != nil {
			if _, ok := outcome.Of(err); !ok {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, n := range names {
			if n == "" || strings.HasPrefix(n, "/") || n == ManifestName || len(n) > MaxNameBytes {
				t.Fatalf("accepted %q", n)
			}
			for _, seg := range strings.Split(n, "/") {
				if seg == "" || seg == "." || seg == ".." || len(seg) > maxSegmentBytes {
					t.Fatalf("accepted %q (segment %q)", n, seg)
				}
			}
			if seen[n] {
				t.Fatalf("accepted %q twice", n)
			}
			seen[n] = true
		}
		for _, n := range names {
			for d := parentOf(n); d != ""; d = parentOf(d) {
				if seen[d] {
					t.Fatalf("accepted %q inside %q", n, d)
				}
			}
		}
		files := make([]staged, len(names))
		for i, n := range names {
			files[i] = staged{n, inputs[i].Content}
		}
		m, b := buildManifest(files)
		var back Manifest
		if err := json.Unmarshal(b, &back); err != nil || len(back.Inputs) != len(m.Inputs) {
			t.Fatalf("manifest does not round-trip: %v", err)
		}
		for i := range back.Inputs {
			if back.Inputs[i] != m.Inputs[i] {
				t.Fatalf("entry %d: %+v != %+v", i, back.Inputs[i], m.Inputs[i])
			}
		}
	})
}
