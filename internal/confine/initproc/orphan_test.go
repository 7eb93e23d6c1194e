package initproc

import "testing"

// TestParentGone: the supervisor being pid 1 (a container's entrypoint) is
// not its death; re-parenting to a subreaper is.
func TestParentGone(t *testing.T) {
	for _, c := range []struct {
		name             string
		supervisor, ppid int
		gone             bool
	}{
		{"supervisor alive", 4242, 4242, false},
		{"supervisor is pid 1 and alive", 1, 1, false},
		{"re-parented to pid 1", 4242, 1, true},
		{"re-parented to a subreaper", 4242, 77, true},
		{"old spec, parent pid 1", 0, 1, true},
		{"old spec, other parent", 0, 4242, false},
	} {
		if got := parentGone(c.supervisor, c.ppid); got != c.gone {
			t.Errorf("%s: parentGone(%d, %d) = %v, want %v", c.name, c.supervisor, c.ppid, got, c.gone)
		}
	}
}
