package fleetload

import (
	"slices"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	tail := " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 424242 0 0" // 17 fields, then starttime (field 22)
	for _, tc := range []struct {
		name, in string
		want     procStat
		bad      bool
	}{
		{"plain", "123 (cat) S 45" + tail, procStat{'S', 45, 424242}, false},
		{"spaces and parens in comm", "123 (a) b (c) Z 7" + tail, procStat{'Z', 7, 424242}, false},
		{"no paren", "123 cat S 45" + tail, procStat{}, true},
		{"short", "123 (cat) S 45 0 0", procStat{}, true},
		{"bad ppid", "123 (cat) S x" + tail, procStat{}, true},
		{"negative ppid", "123 (cat) S -1" + tail, procStat{}, true},
		{"bad start", "123 (cat) S 4" + strings.Repeat(" 0", 17) + " nope 0 0", procStat{}, true},
		{"long state", "123 (cat) SS 4" + tail, procStat{}, true},
	} {
		got, err := parseStat([]byte(tc.in))
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("%s: parseStat = %+v, %v; want %+v, error %v", tc.name, got, err, tc.want, tc.bad)
		}
	}
}

func TestMountPoints(t *testing.T) {
	mi := "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n" +
		"40 22 0:35 / /tmp/a\\040b rw - tmpfs tmpfs rw\n" +
		"41 22 0:36 / /tmp/back\\134slash rw master:3 - tmpfs tmpfs rw\n"
	got, err := mountPoints([]byte(mi))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/", "/tmp/a b", `/tmp/back\slash`}; !slices.Equal(got, want) {
		t.Errorf("mountPoints = %q, want %q", got, want)
	}
	for _, bad := range []string{
		"22 1 8:1 / / rw\n",                                  // short: a check that skipped it could miss a mount
		"40 22 0:35 / /tmp/x\\04 rw - tmpfs tmpfs rw\n",      // truncated escape
		"40 22 0:35 / /tmp/x\\999 rw - tmpfs tmpfs rw\n",     // not octal
		"40 22 0:35 / /tmp/x\\0 rw - tmpfs tmpfs rw extra\n", // truncated at the end of the field
	} {
		if got, err := mountPoints([]byte(bad)); err == nil {
			t.Errorf("mountPoints(%q) = %q, want an error", bad, got)
		}
	}
}

func TestUnder(t *testing.T) {
	for _, tc := range []struct {
		p, dir string
		want   bool
	}{
		{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/a/b", "/a/", true},
		{"/", "/a", false}, {"/x", "/", true},
	} {
		if got := under(tc.p, tc.dir); got != tc.want {
			t.Errorf("under(%q, %q) = %v", tc.p, tc.dir, got)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("123 (cat) S 45 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 424242 0 0"))
	f.Add([]byte("1 ()) R 0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parseStat(b)
		if err == nil && st.PPID < 0 {
			t.Fatalf("negative ppid from %q", b)
		}
	})
}

func FuzzMountPoints(f *testing.F) {
	f.Add([]byte("40 22 0:35 / /tmp/a\\040b rw - tmpfs tmpfs rw\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		mps, err := mountPoints(b)
		if err != nil {
			return
		}
		for _, mp := range mps {
			if mp == "" {
				t.Fatalf("empty mount point from %q", b)
			}
		}
	})
}
