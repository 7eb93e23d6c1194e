package initimage

import "testing"

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		value                  string
		underTest, blob, fresh bool
		want                   source
		wantErr                bool
	}{
		{"", false, true, false, fromEmbedded, false}, // a program: the carried init, whatever is on disk
		{"", true, true, true, fromEmbedded, false},   // a test binary, blob built from its sources: what ships
		{"", true, true, false, fromSelf, false},      // a test binary, sources changed: the source as written
		{"", false, false, true, fromSelf, false},     // no blob for this platform
		{"", true, false, true, fromSelf, false},
		{"self", false, true, true, fromSelf, false}, // asked for
		{"self", true, true, true, fromSelf, false},
		{"embedded", true, true, false, mustEmbedded, false}, // asked for: stale or not
		{"embedded", false, false, true, 0, true},            // asked for, not carried: an error, not a silent fallback
		{"Embedded", false, true, true, 0, true},
		{"yes", false, true, true, 0, true},
	} {
		asked := false
		got, err := choose(c.value, c.underTest, c.blob, func() bool { asked = true; return c.fresh })
		if (err != nil) != c.wantErr || (err == nil && got != c.want) {
			t.Errorf("choose(%q, %v, %v, fresh %v) = %v, %v; want %v (error %v)", c.value, c.underTest, c.blob, c.fresh, got, err, c.want, c.wantErr)
		}
		if asked && !(c.value == "" && c.underTest && c.blob) {
			t.Errorf("choose(%q, %v, %v) ran the freshness check, which only a test binary about to use the blob needs", c.value, c.underTest, c.blob)
		}
	}
}
