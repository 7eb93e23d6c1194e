package run

import "testing"

func TestHandOver(t *testing.T) {
	for _, c := range []struct {
		name string
		mode uint32
		rdev uint64
		want bool
	}{
		{"pipe", 0o010600, 0, true},
		{"/dev/null", 0o020666, devNull, true},
		{"/dev/zero", 0o020666, 1<<8 | 5, false},
		{"a terminal", 0o020620, 136<<8 | 1, false},
		{"regular file", 0o100644, 0, false},
		{"directory", 0o040755, 0, false},
		{"socket", 0o140777, 0, false},
		{"block device", 0o060660, 8<<8 | 1, false},
		{"symlink (never from fstat)", 0o120777, 0, false},
		{"no type bits", 0o644, 0, false},
	} {
		if got := handOver(c.mode, c.rdev); got != c.want {
			t.Errorf("%s: handOver(%o, %d) = %v, want %v", c.name, c.mode, c.rdev, got, c.want)
		}
	}
}
