package initimage

import "testing"

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		value           string
		underTest, blob bool
		want            source
		wantErr         bool
	}{
		{"", false, true, fromEmbedded, false}, // a program: the carried init
		{"", true, true, fromSelf, false},      // a test binary: the source under test
		{"", false, false, fromSelf, false},    // no blob for this platform
		{"self", false, true, fromSelf, false}, // asked for
		{"embedded", true, true, mustEmbedded, false},
		{"embedded", false, false, 0, true}, // asked for, not carried: an error, not a silent fallback
		{"Embedded", false, true, 0, true},
		{"yes", false, true, 0, true},
	} {
		got, err := choose(c.value, c.underTest, c.blob)
		if (err != nil) != c.wantErr || (err == nil && got != c.want) {
			t.Errorf("choose(%q, %v, %v) = %v, %v; want %v (error %v)", c.value, c.underTest, c.blob, got, err, c.want, c.wantErr)
		}
	}
}
