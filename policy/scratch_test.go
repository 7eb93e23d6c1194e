package policy

import "testing"

// A read-only path the deployment names under /tmp is kept as a layer even
// though it grants what the baseline does: every confining backend gives
// a private /tmp, where it would otherwise be hidden. Elsewhere such a
// layer changes nothing and is dropped; a request's own read entry there
// is not kept either (a request only narrows).
func TestNamedScratchLayerKept(t *testing.T) {
	d := wsDefaults()
	d.Entries = []Entry{{Path: "/tmp/data", Access: Read}, {Path: "/srv/data", Access: Read}, {Path: "/tmp", Access: Read}}
	p := mustResolve(t, Request{}, d)
	has := map[string]bool{}
	for _, l := range p.Layers {
		has[l.Path] = true
	}
	if !has["/tmp/data"] || has["/srv/data"] || has["/tmp"] {
		t.Fatalf("layers %v", p.Layers)
	}
}

func TestScratchLimit(t *testing.T) {
	d := wsDefaults()
	if p := mustResolve(t, Request{Limits: &Limits{ScratchBytes: 1 << 20}}, d); p.Limits.ScratchBytes != 1<<20 {
		t.Fatalf("a request may lower the scratch size: %d", p.Limits.ScratchBytes)
	}
	if _, err := Resolve(Request{Limits: &Limits{ScratchBytes: 8 << 30}}, d); err == nil {
		t.Fatal("a request raised the scratch size above the default's cap")
	}
	if p := mustResolve(t, Request{}, d); p.Limits.ScratchBytes != 0 {
		t.Fatalf("unset stays the backend default: %d", p.Limits.ScratchBytes)
	}
	d.Limits.ScratchBytes = 4 << 30
	if p := mustResolve(t, Request{Limits: &Limits{ScratchBytes: 2 << 30}}, d); p.Limits.ScratchBytes != 2<<30 {
		t.Fatalf("under a deployment's larger size: %d", p.Limits.ScratchBytes)
	}
	if _, err := Resolve(Request{Limits: &Limits{ScratchBytes: -1}}, d); err == nil {
		t.Fatal("negative scratch accepted")
	}
}
