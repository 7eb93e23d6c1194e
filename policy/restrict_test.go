package policy

import (
	"slices"
	"testing"
)

// Standing restrictions narrow like a request's entries — intersection
// over everything deeper, the temp dir and deployment grants included —
// and can never grant: a read restriction over a denied subtree or a
// deny baseline opens nothing.
func TestStandingRestrictions(t *testing.T) {
	d := wsDefaults()
	d.TempDir = "/repo/tmp"
	d.Entries = []Entry{{Path: "/repo/build/out", Access: Write}, {Path: "/secret", Access: Deny}, {Path: "/data", Access: Write}}
	d.Restrictions = []Entry{{Path: "/repo", Access: Read}, {Path: "/secret", Access: Read}, {Path: "/data/private", Access: Deny}}
	p := mustResolve(t, Request{}, d)
	wantAccess(t, p, map[string]Access{
		"/repo": Read, "/repo/src": Read, "/repo/build/out/x": Read, "/repo/tmp/x": Read,
		"/secret/k": Deny, "/data/x": Write, "/data/private/y": Deny, "/etc": Read,
	})
	// The restriction leaves /repo at the baseline's read: the mode's
	// write grant there is shadowed and dropped, not kept beneath it.
	for _, l := range p.Layers {
		if l.Path == "/repo" && l.Access != Read {
			t.Errorf("layer %+v at /repo survives its read restriction: %v", l, p.Layers)
		}
	}
	if rs := p.WritableRoots(); slices.Contains(rs.Roots, "/repo") {
		t.Errorf("/repo is a writable root under a read restriction: %+v", rs)
	}

	deny := wsDefaults()
	deny.Baseline = Deny
	deny.Restrictions = []Entry{{Path: "/etc", Access: Read}}
	wantAccess(t, mustResolve(t, Request{}, deny), map[string]Access{"/etc/passwd": Deny, "/repo/x": Write})

	// An approval still widens past a restriction: a person decided.
	a := wsDefaults()
	a.Restrictions = []Entry{{Path: "/repo", Access: Read}}
	apr := Approve(Grant{Entries: []Entry{{Path: "/repo/out", Access: Write}}})
	wantAccess(t, mustResolve(t, Request{Approval: apr}, a), map[string]Access{"/repo/out/x": Write, "/repo/src": Read})

	bad := wsDefaults()
	bad.Restrictions = []Entry{{Path: "/repo", Access: Write}}
	_, err := Resolve(Request{}, bad)
	wantInvalid(t, err, "restriction")
	bad.Restrictions = []Entry{{Path: "rel", Access: Read}}
	_, err = Resolve(Request{}, bad)
	wantInvalid(t, err, "restriction")
}
