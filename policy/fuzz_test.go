package policy

import (
	"errors"
	"slices"
	"testing"
)

var fuzzPaths = []string{
	"/", "/repo", "/repo/a", "/repo/a/b", "/repo-secrets", "/tmp/rf", "/repo/.git", "/repo/.git/hooks",
	"/etc", "/home/u/.ssh", "/repo/.vscode", "relative", "/repo/../etc", "/data", "/data/x", "/main/.git/hooks",
}

func fuzzDefaults(sel uint8) Defaults {
	d := wsDefaults()
	switch sel % 6 {
	case 1:
		d.Mode = ReadOnly
		d.Entries = []Entry{{Path: "/data", Access: Write}, {Path: "/etc", Access: Deny}}
	case 2:
		d.Baseline = Deny
		d.Entries = []Entry{{Path: "/usr", Access: Read}, {Path: "/data", Access: Write}, {Path: "/data/x", Access: Deny}}
	case 3:
		d.Mode = DangerFullAccess
	case 4:
		d.Network = Network{Mode: NetDomains, Domains: []string{"a.org", "*.b.org"}}
		d.Limits = Limits{WallClock: 100, MemoryBytes: 1000, Processes: 10}
		d.ProtectGit = GitReadOnly
	case 5:
		d.ReadFile = fakeFS{"/repo/.git": "gitdir: ../main/.git/worktrees/r\n", "/main/.git/worktrees/r/commondir": "../.."}.ReadFile
		d.Entries = []Entry{{Path: "/main", Access: Write}}
	}
	return d
}

// fuzzRequest builds a request from raw fuzz input: each pair of entry
// bytes picks a path (or the free-form one) and an access.
func fuzzRequest(mode, session, net int8, domain string, entries []byte, free string, limit int64, cwd string) Request {
	req := Request{Cwd: cwd, SessionID: "s"}
	if mode >= 0 {
		req.Mode = modeP(Mode(mode % 4))
	}
	if session >= 0 {
		req.SessionMode = modeP(Mode(session % 4))
	}
	if net >= 0 {
		req.Network = &Network{Mode: NetworkMode(net % 5)}
		if domain != "" {
			req.Network.Domains = []string{domain}
		}
	}
	for i := 0; i+1 < len(entries) && i < 16; i += 2 {
		p := free
		if k := int(entries[i]) % (len(fuzzPaths) + 1); k < len(fuzzPaths) {
			p = fuzzPaths[k]
		}
		req.Entries = append(req.Entries, Entry{Path: p, Access: Access(entries[i+1] % 4)})
	}
	if limit != 0 {
		req.Limits = &Limits{WallClock: timeOf(limit), MemoryBytes: limit, Processes: int(limit % 1000), CPUTime: timeOf(limit)}
	}
	return req
}

func FuzzResolve(f *testing.F) {
	f.Add(uint8(0), int8(-1), int8(-1), int8(-1), "", []byte{}, "", int64(0), "", false)
	f.Add(uint8(0), int8(2), int8(-1), int8(3), "", []byte{1, 2, 3, 0}, "/x", int64(5), "/repo/a", false)
	f.Add(uint8(4), int8(0), int8(1), int8(2), "c.b.org", []byte{0, 1, 2, 1}, "", int64(50), "", false)
	f.Add(uint8(2), int8(1), int8(-1), int8(1), "", []byte{14, 1, 15, 2}, "/data/x/y", int64(-3), "/repo", true)
	f.Add(uint8(1), int8(-1), int8(-1), int8(-1), "", []byte{8, 1, 13, 2}, "", int64(0), "", false)
	f.Add(uint8(2), int8(-1), int8(-1), int8(-1), "", []byte{15, 1, 16, 1}, "/opt", int64(0), "", false)
	f.Add(uint8(5), int8(-1), int8(-1), int8(-1), "", []byte{15, 0, 7, 1}, "/main/.git", int64(0), "", false)
	f.Fuzz(func(t *testing.T, sel uint8, mode, session, net int8, domain string, entries []byte, free string, limit int64, cwd string, approve bool) {
		d := fuzzDefaults(sel)
		base, err := Resolve(Request{}, d)
		if err != nil {
			t.Fatalf("defaults do not resolve: %v", err)
		}
		req := fuzzRequest(mode, session, net, domain, entries, free, limit, cwd)
		if approve {
			req.Approval = Approve(Grant{Entries: req.Entries, Mode: req.Mode, Network: req.Network})
		}
		p, err := Resolve(req, d)
		if err != nil {
			if !errors.Is(err, ErrPolicy) {
				t.Fatalf("error %v is not ErrPolicy", err)
			}
			return
		}
		if approve {
			return // an approval may widen; only never-panic and typed errors hold
		}
		checkNoWider(t, p, base)
	})
}

// checkNoWider asserts the property: without an approval, a resolved policy
// gives no more than the defaults' own policy on any axis.
func checkNoWider(t *testing.T, p, base *Policy) {
	t.Helper()
	if p.Mode > base.Mode {
		t.Fatalf("mode widened: %s > %s", p.Mode, base.Mode)
	}
	if p.Network.Mode > base.Network.Mode {
		t.Fatalf("network widened: %s > %s", p.Network.Mode, base.Network.Mode)
	}
	if p.Network.Mode == NetDomains && base.Network.Mode == NetDomains {
		for _, dom := range p.Network.Domains {
			if !domainAllowed(base.Network.Domains, dom) {
				t.Fatalf("domain %q added", dom)
			}
		}
		for _, dn := range base.Network.Deny {
			if !slices.Contains(p.Network.Deny, dn) {
				t.Fatalf("deny rule %q dropped", dn)
			}
		}
		if p.Network.Ask && !base.Network.Ask {
			t.Fatalf("asking turned on")
		}
	}
	for _, pair := range [][2]int64{
		{int64(p.Limits.WallClock), int64(base.Limits.WallClock)}, {p.Limits.MemoryBytes, base.Limits.MemoryBytes},
		{int64(p.Limits.Processes), int64(base.Limits.Processes)}, {int64(p.Limits.CPUTime), int64(base.Limits.CPUTime)},
	} {
		if pair[1] != 0 && (pair[0] == 0 || pair[0] > pair[1]) {
			t.Fatalf("limit raised: %d > %d", pair[0], pair[1])
		}
	}
	var probes []string
	for _, l := range append(append([]Layer{}, p.Layers...), base.Layers...) {
		probes = append(probes, l.Path, l.Path+"/x", l.Path+"-x")
	}
	probes = append(probes, fuzzPaths...)
	for _, path := range probes {
		if got, max := p.AccessAt(path), base.AccessAt(path); got > max {
			t.Fatalf("access at %s widened: %s > %s\nrequest layers %v\nbase layers %v", path, got, max, p.Layers, base.Layers)
		}
	}
	if !Contains(p.Root, p.Cwd) {
		t.Fatalf("cwd %s outside root %s", p.Cwd, p.Root)
	}
}
