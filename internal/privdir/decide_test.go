package privdir

import (
	"testing"
	"time"
)

func TestCandidate(t *testing.T) {
	const p = "ringfence-tmp-"
	for _, c := range []struct {
		name string
		age  time.Duration
		want bool
	}{
		{"ringfence-tmp-L123", 0, true},
		{"ringfence-tmp-123", time.Hour, false}, // made without a lock (an older ringfence, maybe alive)
		{"ringfence-tmp-L", 0, false},
		{"ringfence-tmp-", 0, false},
		{"ringfence-tmpx", 0, false},
		{"other", time.Hour, false},
		{".ringfence-tmp-new-42", time.Second, false}, // being made right now
		{".ringfence-tmp-new-42", 2 * time.Minute, true},
		{".ringfence-tmp-new-", time.Hour, false},
	} {
		if got := candidate(c.name, p, c.age); got != c.want {
			t.Errorf("candidate(%q, %v) = %v, want %v", c.name, c.age, got, c.want)
		}
	}
}
