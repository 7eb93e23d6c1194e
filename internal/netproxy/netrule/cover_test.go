package netrule

import "testing"

func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		r, o string
		want bool
	}{
		{"*", "a.org", true},
		{"*", "*.a.org", true},
		{"*", "a.org:443", true},
		{"*", "1.2.3.4", false}, // "*" never covers an address rule

		{"a.org", "a.org", true},
		{"a.org", "a.org:443", true},
		{"a.org:443", "a.org", false},
		{"a.org", "b.a.org", false},
		{"*.a.org", "b.a.org", true},
		{"*.a.org", "a.org", false}, // not the apex
		{"*.a.org", "evila.org", false},
		{"*.a.org", "x.evila.org", false},
		{"*.a.org", "*.b.a.org", true},
		{"*.a.org", "*.a.org", true},
		{"*.b.a.org", "*.a.org", false},
		{"10.0.0.0/8", "10.1.2.3", true},
		{"10.0.0.0/8", "10.1.0.0/16", true},
		{"10.1.0.0/16", "10.0.0.0/8", false},
		{"10.0.0.0/8", "11.0.0.1", false},
		{"10.0.0.0/8", "a.org", false},
		{"[::1]", "[::1]", true},
		{"::/0", "1.2.3.4", false},
		{"a.org", "*.a.org", false},
	} {
		r, err := ParseRule(tc.r, true)
		if err != nil {
			t.Fatalf("%q: %v", tc.r, err)
		}
		o, err := ParseRule(tc.o, true)
		if err != nil {
			t.Fatalf("%q: %v", tc.o, err)
		}
		if got := r.Covers(o); got != tc.want {
			t.Errorf("%q covers %q = %v, want %v", tc.r, tc.o, got, tc.want)
		}
	}
}
