package initproc

import "testing"

func TestChildAttr(t *testing.T) {
	if a := childAttr([3]bool{}); a.Setsid || a.Setctty || a.Pdeathsig == 0 {
		t.Errorf("no terminal: %+v, want the init's session and a death signal", a)
	}
	for _, tc := range []struct {
		tty [3]bool
		fd  int
	}{{[3]bool{true, true, true}, 0}, {[3]bool{false, true, false}, 1}, {[3]bool{false, false, true}, 2}} {
		a := childAttr(tc.tty)
		if !a.Setsid || !a.Setctty || a.Ctty != tc.fd || a.Pdeathsig == 0 {
			t.Errorf("%v: %+v, want a session on fd %d", tc.tty, a, tc.fd)
		}
	}
}

func TestPtsPath(t *testing.T) {
	for p, want := range map[string]bool{
		"/dev/pts/0": true, "/dev/pts/17": true, "/dev/pts/": false, "/dev/pts/ptmx": false,
		"/dev/pts/1/../../sda": false, "/dev/tty1": false, "/dev/console": false, "pipe:[1234]": false,
	} {
		if ptsPath(p) != want {
			t.Errorf("%q: %v", p, !want)
		}
	}
}
