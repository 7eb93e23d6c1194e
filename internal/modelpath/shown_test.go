package modelpath

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A refused path is echoed cut at MaxShown bytes, never inside a rune: a
// split rune is invalid UTF-8 in the outcome (JSON turns it into U+FFFD,
// other encoders refuse or pass it on). Control: a cut at the byte bound
// alone splits "é" here.
func TestShownKeepsRunes(t *testing.T) {
	p := "a" + strings.Repeat("é", MaxShown)
	if utf8.ValidString(p[:MaxShown]) {
		t.Fatal("control: the byte bound does not split a rune in this input")
	}
	got := Shown(p)
	if !utf8.ValidString(got) || len(got) > MaxShown+len("…") || !strings.HasSuffix(got, "…") {
		t.Fatalf("Shown cut %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
	if Shown("short") != "short" {
		t.Fatal("a short path is changed")
	}
}

func FuzzShown(f *testing.F) {
	f.Add("a" + strings.Repeat("é", MaxShown))
	f.Add(strings.Repeat("\U0001F600", MaxShown))
	f.Fuzz(func(t *testing.T, p string) {
		got := Shown(p)
		if len(got) > MaxShown+len("…") || utf8.ValidString(p) && !utf8.ValidString(got) {
			t.Fatalf("Shown(%d bytes) = %d bytes, valid %v", len(p), len(got), utf8.ValidString(got))
		}
		if len(p) <= MaxShown && got != p {
			t.Fatalf("a path within the bound is changed")
		}
	})
}
