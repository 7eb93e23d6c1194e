package confine

import (
	"testing"

	"github.com/ringfence/ringfence/policy"
)

func TestMountPathRefused(t *testing.T) {
	p := &policy.Policy{Root: "/srv/ws", Baseline: policy.Read, Layers: []policy.Layer{
		{Path: "/srv/ws", Access: policy.Write}, {Path: "/data/secret", Access: policy.Deny}}}
	for _, m := range []string{"relative", "/", "/usr", "/usr/local/ws", "/tmp", "/proc/x", "/srv", "/srv/ws/sub", "/data", "/workspace/../etc"} {
		if err := CheckMountPath(p, m); err == nil {
			t.Errorf("mount path %q accepted", m)
		}
	}
	for _, m := range []string{"", "/srv/ws", "/workspace", "/home/agent/ws"} {
		if err := CheckMountPath(p, m); err != nil {
			t.Errorf("mount path %q refused: %v", m, err)
		}
	}
}
