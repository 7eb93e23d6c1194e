package policy

import (
	"strings"
	"testing"
	"time"
)

func TestWorkspaceWriteGrant(t *testing.T) {
	p := mustResolve(t, Request{}, wsDefaults())
	if p.Mode != WorkspaceWrite || !p.Confining() || p.Root != "/repo" || p.TempDir != "/tmp/rf" || p.Cwd != "/repo" {
		t.Fatalf("policy %+v", p)
	}
	wantAccess(t, p, map[string]Access{
		"/repo": Write, "/repo/src/main.go": Write, "/tmp/rf/x": Write,
		"/repo-secrets": Read, "/repo-secrets/key": Read, "/etc/passwd": Read, "/tmp": Read, "/tmp/rf2": Read,
	})
	rs := p.WritableRoots()
	if strings.Join(rs.Roots, " ") != "/repo /tmp/rf" {
		t.Errorf("roots %v", rs.Roots)
	}
}

func TestReadOnlyHasNoWrites(t *testing.T) {
	d := wsDefaults()
	d.Mode = ReadOnly
	d.Entries = []Entry{{Path: "/data", Access: Write}, {Path: "/secret", Access: Deny}}
	p := mustResolve(t, Request{}, d)
	wantAccess(t, p, map[string]Access{"/repo": Read, "/tmp/rf": Read, "/data": Read, "/secret/x": Deny})
	if len(p.WritableRoots().Roots) != 0 || p.TempDir != "" {
		t.Errorf("read-only policy has write roots %v / temp dir %q", p.WritableRoots(), p.TempDir)
	}
}

func TestModeCeiling(t *testing.T) {
	ro, ww, danger := ReadOnly, WorkspaceWrite, DangerFullAccess
	for _, tc := range []struct {
		name              string
		def               Mode
		req, session, apr *Mode
		want              Mode
		escalate          string
	}{
		{"default", WorkspaceWrite, nil, nil, nil, WorkspaceWrite, ""},
		{"narrow", WorkspaceWrite, &ro, nil, nil, ReadOnly, ""},
		{"same", WorkspaceWrite, &ww, nil, nil, WorkspaceWrite, ""},
		{"widen", ReadOnly, &ww, nil, nil, 0, "mode workspace-write"},
		{"widen to danger", WorkspaceWrite, &danger, nil, nil, 0, "mode danger-full-access"},
		{"session lowers ceiling", WorkspaceWrite, nil, &ro, nil, ReadOnly, ""},
		{"session cannot raise", ReadOnly, nil, &danger, nil, ReadOnly, ""},
		{"request above session", WorkspaceWrite, &ww, &ro, nil, 0, "mode workspace-write"},
		{"approved", ReadOnly, &ww, nil, &ww, WorkspaceWrite, ""},
		{"approved, request omits mode", ReadOnly, nil, nil, &ww, WorkspaceWrite, ""},
		{"approval too small", ReadOnly, &danger, nil, &ww, 0, "mode danger-full-access"},
		{"approval does not narrow", WorkspaceWrite, nil, nil, &ro, WorkspaceWrite, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := wsDefaults()
			d.Mode = tc.def
			req := Request{Mode: tc.req, SessionMode: tc.session}
			if tc.apr != nil {
				req.Approval = Approve(Grant{Mode: tc.apr})
			}
			p, err := Resolve(req, d)
			if tc.escalate != "" {
				wantEscalation(t, err, tc.escalate, "")
				return
			}
			if err != nil || p.Mode != tc.want {
				t.Fatalf("got %v, %v; want %v", p, err, tc.want)
			}
		})
	}
}

func TestInvalidInputs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		req   Request
		edit  func(*Defaults)
		field string
	}{
		{"relative root", Request{}, func(d *Defaults) { d.Root = "repo" }, "root"},
		{"empty root", Request{}, func(d *Defaults) { d.Root = "" }, "root"},
		{"relative temp", Request{}, func(d *Defaults) { d.TempDir = "tmp" }, "temp dir"},
		{"relative entry", Request{}, func(d *Defaults) { d.Entries = []Entry{{Path: "x", Access: Deny}} }, "entry"},
		{"NUL entry", Request{}, func(d *Defaults) { d.Entries = []Entry{{Path: "/x\x00", Access: Deny}} }, "entry"},
		{"bad access", Request{}, func(d *Defaults) { d.Entries = []Entry{{Path: "/x", Access: 7}} }, "entry access"},
		{"write baseline", Request{}, func(d *Defaults) { d.Baseline = Write }, "baseline"},
		{"bad mode", Request{}, func(d *Defaults) { d.Mode = 9 }, "mode"},
		{"bad protect_git", Request{}, func(d *Defaults) { d.ProtectGit = "sometimes" }, "protect_git"},
		{"absolute extra protected", Request{}, func(d *Defaults) { d.ExtraProtected = []string{"/etc"} }, "protected"},
		{"climbing extra protected", Request{}, func(d *Defaults) { d.ExtraProtected = []string{"../x"} }, "protected"},
		{"negative limit", Request{}, func(d *Defaults) { d.Limits.Processes = -1 }, "limit processes"},
		{"bad unix socket", Request{}, func(d *Defaults) { d.UnixSockets = []string{"run/x.sock"} }, "unix socket"},
		{"relative request entry", Request{Entries: []Entry{{Path: "src", Access: Deny}}}, nil, "request entry"},
		{"bad request mode", Request{Mode: modeP(5)}, nil, "mode"},
		{"relative cwd", Request{Cwd: "src"}, nil, "cwd"},
		{"cwd outside root", Request{Cwd: "/etc"}, nil, "cwd"},
		{"cwd in sibling", Request{Cwd: "/repo-secrets"}, nil, "cwd"},
		{"cwd climbing out", Request{Cwd: "/repo/../etc"}, nil, "cwd"},
		{"negative request limit", Request{Limits: &Limits{MemoryBytes: -5}}, nil, "limit memory"},
		{"relative approval entry", Request{Approval: Approve(Grant{Entries: []Entry{{Path: "x", Access: Write}}})}, nil, "approval entry"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := wsDefaults()
			if tc.edit != nil {
				tc.edit(&d)
			}
			_, err := Resolve(tc.req, d)
			wantInvalid(t, err, tc.field)
		})
	}
}

func TestCwd(t *testing.T) {
	p := mustResolve(t, Request{Cwd: "/repo/src/../pkg/"}, wsDefaults())
	if p.Cwd != "/repo/pkg" {
		t.Errorf("cwd %q", p.Cwd)
	}
}

func TestLimits(t *testing.T) {
	def := Limits{WallClock: time.Minute, MemoryBytes: 1 << 30}
	for _, tc := range []struct {
		name     string
		req      *Limits
		want     Limits
		escalate string
	}{
		{"inherit", nil, def, ""},
		{"zero fields inherit", &Limits{}, def, ""},
		{"lower", &Limits{WallClock: time.Second, MemoryBytes: 1 << 20}, Limits{WallClock: time.Second, MemoryBytes: 1 << 20}, ""},
		{"set an unlimited one", &Limits{Processes: 10, CPUTime: time.Second}, Limits{WallClock: time.Minute, MemoryBytes: 1 << 30, Processes: 10, CPUTime: time.Second}, ""},
		{"raise wall clock", &Limits{WallClock: time.Hour}, Limits{}, "limit wall_clock"},
		{"raise memory", &Limits{MemoryBytes: 2 << 30}, Limits{}, "limit memory"},
		{"equal", &Limits{WallClock: time.Minute}, def, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := wsDefaults()
			d.Limits = def
			p, err := Resolve(Request{Limits: tc.req}, d)
			if tc.escalate != "" {
				wantEscalation(t, err, tc.escalate, "")
				return
			}
			if err != nil || p.Limits != tc.want {
				t.Fatalf("got %+v, %v; want %+v", p, err, tc.want)
			}
		})
	}
}

func TestDangerFullAccess(t *testing.T) {
	d := wsDefaults()
	d.Mode = DangerFullAccess
	p := mustResolve(t, Request{}, d)
	if p.Confining() || p.AccessAt("/etc/shadow") != Write || len(p.Layers) != 0 {
		t.Fatalf("danger policy %+v", p)
	}
	// A request may still narrow it, down to a confining mode.
	p = mustResolve(t, Request{Mode: modeP(WorkspaceWrite)}, d)
	if !p.Confining() || p.AccessAt("/etc/shadow") != Read {
		t.Fatalf("narrowed policy %+v", p)
	}
}

func TestPassThroughFields(t *testing.T) {
	d := wsDefaults()
	d.AllowAliasedWrites = true
	d.UnixSockets = []string{"/run/docker.sock/"}
	p := mustResolve(t, Request{SessionID: "s1"}, d)
	if !p.AllowAliasedWrites || p.SessionID != "s1" || len(p.UnixSockets) != 1 || p.UnixSockets[0] != "/run/docker.sock" {
		t.Fatalf("policy %+v", p)
	}
}

func TestEscalationMessageNamesOnlyFieldAndPath(t *testing.T) {
	_, err := Resolve(Request{Entries: []Entry{{Path: "/home/u/.ssh", Access: Write}}}, wsDefaults())
	want := `policy refused: request asks for write entry "/home/u/.ssh" without an approval`
	if err == nil || err.Error() != want {
		t.Fatalf("message %q, want %q", err, want)
	}
}
