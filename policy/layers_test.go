package policy

import (
	"slices"
	"strings"
	"testing"
)

func TestNestedCarveOutsDeepestWins(t *testing.T) {
	d := Defaults{Mode: WorkspaceWrite, Root: "/ws", Baseline: Read, Entries: []Entry{
		{Path: "/repo/a/b", Access: Write}, {Path: "/repo/a", Access: Deny}, {Path: "/repo", Access: Write},
	}}
	p := mustResolve(t, Request{}, d)
	wantAccess(t, p, map[string]Access{
		"/repo": Write, "/repo/x": Write, "/repo/a": Deny, "/repo/a/c": Deny,
		"/repo/a/b": Write, "/repo/a/b/c/d": Write, "/repo/ab": Write, "/repo-a": Read,
	})
	rs := p.WritableRoots()
	if !slices.Equal(rs.Roots, []string{"/ws", "/repo", "/repo/a/b"}) || !slices.Contains(rs.Denied, "/repo/a") {
		t.Errorf("writable roots %+v", rs)
	}
	if !slices.Contains(p.UnreadablePaths(), "/repo/a") {
		t.Errorf("unreadable %v", p.UnreadablePaths())
	}
	for i := 1; i < len(p.Layers); i++ {
		if Depth(p.Layers[i-1].Path) > Depth(p.Layers[i].Path) {
			t.Fatalf("layers not sorted broadest first: %v", p.Layers)
		}
	}
}

func TestLaterDeploymentEntryReplacesEarlier(t *testing.T) {
	d := wsDefaults()
	d.Entries = []Entry{{Path: "/repo/x", Access: Deny}, {Path: "/repo/x/", Access: Read}}
	wantAccess(t, mustResolve(t, Request{}, d), map[string]Access{"/repo/x": Read})
}

func TestRequestRestrictionsIntersect(t *testing.T) {
	d := wsDefaults()
	d.Entries = []Entry{{Path: "/secret", Access: Deny}, {Path: "/repo/out", Access: Write}, {Path: "/repo/vendor", Access: Read}}
	for _, tc := range []struct {
		name string
		req  []Entry
		want map[string]Access
	}{
		{"read under a deny parent stays deny", []Entry{{Path: "/secret/pub", Access: Read}}, map[string]Access{"/secret/pub": Deny}},
		{"deny in the root", []Entry{{Path: "/repo/src", Access: Deny}}, map[string]Access{"/repo/src/a": Deny, "/repo/srcx": Write}},
		{"read caps deeper grants", []Entry{{Path: "/repo", Access: Read}}, map[string]Access{"/repo/a": Read, "/repo/out/x": Read, "/repo/vendor": Read, "/tmp/rf": Write}},
		{"deny everything", []Entry{{Path: "/", Access: Deny}}, map[string]Access{"/etc": Deny, "/repo/out": Deny, "/tmp/rf/x": Deny}},
		{"read where read is a no-op", []Entry{{Path: "/etc", Access: Read}}, map[string]Access{"/etc": Read}},
		{"narrower read then wider deny", []Entry{{Path: "/repo/a/b", Access: Read}, {Path: "/repo/a", Access: Deny}}, map[string]Access{"/repo/a/b": Deny, "/repo/a": Deny}},
		{"sibling is untouched", []Entry{{Path: "/repo", Access: Deny}}, map[string]Access{"/repo-secrets": Read, "/repo": Deny}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := mustResolve(t, Request{}, d)
			p := mustResolve(t, Request{Entries: tc.req}, d)
			wantAccess(t, p, tc.want)
			for _, l := range append(slices.Clone(p.Layers), base.Layers...) {
				for _, path := range []string{l.Path, l.Path + "/z"} {
					if p.AccessAt(path) > base.AccessAt(path) {
						t.Errorf("restriction widened %s: %s > %s", path, p.AccessAt(path), base.AccessAt(path))
					}
				}
			}
		})
	}
}

func TestRequestWriteEntryNeedsApproval(t *testing.T) {
	req := Request{Entries: []Entry{{Path: "/repo/x", Access: Write}}}
	_, err := Resolve(req, wsDefaults())
	wantEscalation(t, err, "write entry", "/repo/x")

	req.Approval = Approve(Grant{Entries: []Entry{{Path: "/elsewhere", Access: Write}}})
	_, err = Resolve(req, wsDefaults())
	wantEscalation(t, err, "write entry", "/repo/x")
	if req.Approval.Spent() {
		t.Error("a refused resolution spent the approval")
	}

	req.Approval = Approve(Grant{Entries: []Entry{{Path: "/repo", Access: Write}}})
	mustResolve(t, req, wsDefaults())
}

func TestApprovedEntriesWiden(t *testing.T) {
	d := wsDefaults()
	d.Mode = ReadOnly
	a := Approve(Grant{Entries: []Entry{{Path: "/data", Access: Write}, {Path: "/repo/docs", Access: Write}}})
	p := mustResolve(t, Request{Entries: []Entry{{Path: "/data/out", Access: Write}}, Approval: a}, d)
	wantAccess(t, p, map[string]Access{
		"/data/out": Write, "/repo/docs/a.md": Write, "/repo/src": Read,
		"/data/.git/hooks": Read, "/data/.bashrc": Read, "/repo/docs/.vscode": Read,
	})
}

func TestTiesByOrigin(t *testing.T) {
	// An operator's entry beats the generated protection at the same path.
	d := wsDefaults()
	d.Entries = []Entry{{Path: "/repo/.vscode", Access: Write}}
	wantAccess(t, mustResolve(t, Request{}, d), map[string]Access{"/repo/.vscode/settings.json": Write, "/repo/.idea": Read})

	// An approval beats a request restriction at the same path.
	a := Approve(Grant{Scope: Session, Entries: []Entry{{Path: "/repo/out", Access: Write}}})
	p := mustResolve(t, Request{Entries: []Entry{{Path: "/repo/out", Access: Read}}, Approval: a}, wsDefaults())
	wantAccess(t, p, map[string]Access{"/repo/out": Write})
	// …but a restriction deeper than the approved entry still applies.
	p = mustResolve(t, Request{Entries: []Entry{{Path: "/repo/out/keep", Access: Read}}, Approval: a}, wsDefaults())
	wantAccess(t, p, map[string]Access{"/repo/out": Write, "/repo/out/keep": Read})
}

func TestNoOpLayersDropped(t *testing.T) {
	d := wsDefaults()
	d.Entries = []Entry{{Path: "/repo/sub", Access: Write}, {Path: "/etc", Access: Read}, {Path: "/repo/.idea", Access: Write}}
	p := mustResolve(t, Request{Entries: []Entry{{Path: "/tmp/rf", Access: Read}}}, d)
	wantAccess(t, p, map[string]Access{"/tmp/rf/x": Read, "/repo/.idea": Write})
	for _, l := range p.Layers {
		if l.Path == "/repo/sub" || l.Path == "/etc" {
			t.Errorf("no-op layer kept: %+v", l)
		}
		i := slices.Index(p.Layers, l)
		for _, e := range p.Layers[:i] {
			if e.Path == l.Path { // adjacent or not (TestResolveDropsShadowedLayerNotAdjacent)
				t.Errorf("shadowed layer kept: %+v", e)
			}
		}
		before := &Policy{Baseline: p.Baseline, Layers: p.Layers[:i]}
		if before.AccessAt(l.Path) == l.Access && !namedScratch(l) {
			t.Errorf("layer %+v changes nothing", l)
		}
	}
}

func TestAllowListBaseline(t *testing.T) {
	d := wsDefaults()
	d.Baseline = Deny
	d.Entries = []Entry{{Path: "/usr", Access: Read}}
	p := mustResolve(t, Request{}, d)
	wantAccess(t, p, map[string]Access{"/etc/passwd": Deny, "/usr/bin/sh": Read, "/repo/x": Write, "/repo/.git/hooks": Read})
	if strings.Contains(strings.Join(p.UnreadablePaths(), " "), "/repo") {
		t.Errorf("unreadable %v", p.UnreadablePaths())
	}
}
