package sandbox

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

func TestRingKeepsTheTail(t *testing.T) {
	r := NewRing(8)
	r.Write([]byte("abc"))
	if got, dropped := r.Snapshot(); string(got) != "abc" || dropped != 0 {
		t.Fatalf("%q %d", got, dropped)
	}
	r.Write([]byte("defgh"))
	r.Write([]byte("ij"))
	if got, dropped := r.Snapshot(); string(got) != "cdefghij" || dropped != 2 {
		t.Fatalf("%q %d", got, dropped)
	}
	r.Write([]byte("0123456789"))
	if got, dropped := r.Snapshot(); string(got) != "23456789" || dropped != 12 || r.Total() != 20 {
		t.Fatalf("%q %d %d", got, dropped, r.Total())
	}
}

func TestRingSince(t *testing.T) {
	r := NewRing(4)
	r.Write([]byte("ab"))
	data, next, lost := r.Since(0)
	if string(data) != "ab" || next != 2 || lost != 0 {
		t.Fatalf("%q %d %d", data, next, lost)
	}
	r.Write([]byte("cdef"))
	data, next, lost = r.Since(next)
	if string(data) != "cdef" || next != 6 || lost != 0 {
		t.Fatalf("%q %d %d", data, next, lost)
	}
	r.Write([]byte("ghijk"))
	data, next, lost = r.Since(next)
	if string(data) != "hijk" || next != 11 || lost != 1 {
		t.Fatalf("after overrun: %q %d %d", data, next, lost)
	}
	if data, _, _ = r.Since(99); len(data) != 0 {
		t.Fatalf("past the end: %q", data)
	}
}

// Whatever is written, the ring holds exactly the last bytes and counts
// every byte.
func FuzzRing(f *testing.F) {
	f.Add(3, []byte("hello world"), 4)
	f.Fuzz(func(t *testing.T, size int, data []byte, chunk int) {
		size = size%64 + 1
		if size < 1 {
			size += 64
		}
		chunk = chunk%16 + 1
		if chunk < 1 {
			chunk += 16
		}
		r := NewRing(size)
		for i := 0; i < len(data); i += chunk {
			r.Write(data[i:min(i+chunk, len(data))])
		}
		got, dropped := r.Snapshot()
		want := data[max(0, len(data)-size):]
		if !bytes.Equal(got, want) || dropped != int64(len(data)-len(want)) {
			t.Fatalf("size %d: %q dropped %d, want %q", size, got, dropped, want)
		}
	})
}

func TestPolicyDiff(t *testing.T) {
	base := &policy.Policy{Mode: policy.WorkspaceWrite, Root: "/w", Cwd: "/w", Baseline: policy.Read,
		Layers: []policy.Layer{{Path: "/w", Access: policy.Write, Origin: policy.FromMode}}}
	same := *base
	same.Cwd = "/w/sub"
	if d := policyDiff(base, &same); len(d) != 0 {
		t.Fatalf("a working directory alone differs: %v", d)
	}
	for _, c := range []struct {
		name   string
		change func(p *policy.Policy)
		want   string
	}{
		{"mode", func(p *policy.Policy) { p.Mode = policy.ReadOnly }, "Mode"},
		{"network", func(p *policy.Policy) { p.Network.Mode = policy.NetAllowAll }, "Network"},
		{"layer", func(p *policy.Policy) {
			p.Layers = append(append([]policy.Layer(nil), p.Layers...), policy.Layer{Path: "/etc", Access: policy.Write})
		}, "Layers"},
		{"limits", func(p *policy.Policy) { p.Limits.MemoryBytes = 1 }, "Limits"},
		{"sockets", func(p *policy.Policy) { p.UnixSockets = []string{"/run/x.sock"} }, "UnixSockets"},
		{"names", func(p *policy.Policy) { p.Names.GitWritable = true }, "Names"},
	} {
		t.Run(c.name, func(t *testing.T) {
			other := *base
			c.change(&other)
			if d := policyDiff(base, &other); strings.Join(d, ",") != c.want {
				t.Fatalf("diff %v, want %s", d, c.want)
			}
		})
	}
}
