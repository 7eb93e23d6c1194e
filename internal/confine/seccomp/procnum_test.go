package seccomp

import "testing"

func TestFdinfoPid(t *testing.T) {
	for _, c := range []struct {
		info, want string
		ok         bool
	}{
		{"pos:\t0\nflags:\t02000002\nmnt_id:\t15\nino:\t1063\nPid:\t4242\nNSpid:\t4242\t7\n", "4242", true},
		{"Pid:\t0\n", "", false},  // not visible in this numbering
		{"Pid:\t-1\n", "", false}, // exited
		{"flags:\t0\n", "", false},
		{"Pid:\tx\n", "", false},
	} {
		got, err := fdinfoPid(c.info)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("fdinfoPid(%q) = %q, %v; want %q ok=%v", c.info, got, err, c.want, c.ok)
		}
	}
}
