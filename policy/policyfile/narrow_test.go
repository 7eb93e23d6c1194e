package policyfile

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/policy"
)

// userBase is a typical user's own policy: workspace-write, the host
// readable, loopback, a memory limit, ~/.ssh denied, one socket.
func userBase() Base {
	return Base{Defaults: policy.Defaults{
		Mode: policy.WorkspaceWrite, Root: "/repo", Baseline: policy.Read,
		Network:     policy.Network{Mode: policy.NetLoopback},
		Limits:      policy.Limits{MemoryBytes: 1 << 30},
		Entries:     []policy.Entry{{Path: "/home/u/.ssh", Access: policy.Deny}, {Path: "/data", Access: policy.Write}},
		UnixSockets: []string{"/run/a.sock"},
	}}
}

func parseT(t *testing.T, doc string) *File {
	t.Helper()
	f, err := Parse([]byte(doc), "toml")
	if err != nil {
		t.Fatalf("parse %q: %v", doc, err)
	}
	f.Home, f.Path = "/home/u", "/repo/.ringfence.toml"
	return f
}

func TestNarrowRefusesEveryWidening(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string // each a substring of one widening
	}{
		{"danger mode", `mode = "danger-full-access"`, []string{"mode danger-full-access (yours: workspace-write)"}},
		{"network", "[network]\nmode = \"allow-all\"", []string{"network allow-all (yours: loopback)"}},
		{"domains", "[network]\nmode = \"domains\"\ndomains = [\"evil.example\"]", []string{"network domains [evil.example]"}},
		{"write entry", "[[entry]]\npath = \"/etc\"\naccess = \"write\"", []string{"entry[0] grants write to /etc"}},
		{"write inside root", "[[entry]]\npath = \"out\"\naccess = \"write\"", []string{"grants write to /repo/out"}},
		{"baseline", `baseline = "read"`, nil}, // equal: not a widening
		{"limits", "[limits]\nmemory = \"2G\"", []string{"limits.memory higher than yours"}},
		{"git", `protect_git = "writable"`, []string{"protect_git writable (yours: default)"}},
		{"aliased", `allow_aliased_writes = true`, []string{"allow_aliased_writes = true"}},
		{"socket", `unix_sockets = ["/run/docker.sock"]`, []string{"unix socket /run/docker.sock"}},
		{"exec outcome", "[exec.outcomes]\nprivilege = \"allow\"", []string{"exec.outcomes.privilege = allow (yours: deny)"}},
		{"exec rule", "[[exec.rule]]\nprefix = [\"curl\"]\ndecision = \"allow\"\nmatch = [[\"curl\", \"x\"]]", []string{`exec rule 0 (curl) decides "allow"`}},
		{"env pass secret", "[env]\npass = [\"GITHUB_TOKEN\", \"AWS_SECRET_ACCESS_KEY\"]", []string{`env.pass "GITHUB_TOKEN"`, `env.pass "AWS_SECRET_ACCESS_KEY"`}},
		{"env set", "[env]\nset = {LD_PRELOAD = \"/repo/x.so\"}", []string{"env.set"}},
		{"all at once", "mode = \"danger-full-access\"\n[network]\nmode = \"allow-all\"\n[[entry]]\npath = \"~/.ssh\"\naccess = \"read\"",
			[]string{"mode danger-full-access", "network allow-all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := userBase()
			before := base.Defaults.Entries[0]
			_, err := parseT(t, tc.doc).Narrow(base)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var we *WideningError
			if !errors.As(err, &we) || !errors.Is(err, policy.ErrPolicy) {
				t.Fatalf("error %v, want a WideningError", err)
			}
			if len(we.Widens) != len(tc.want) {
				t.Errorf("widens %q, want %d", we.Widens, len(tc.want))
			}
			for _, w := range tc.want {
				if !slices.ContainsFunc(we.Widens, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("widens %q, none contains %q", we.Widens, w)
				}
			}
			if base.Defaults.Entries[0] != before {
				t.Error("Narrow changed its base")
			}
		})
	}
}

func TestNarrowAppliesNarrowing(t *testing.T) {
	f := parseT(t, `mode = "read-only"
baseline = "deny"
protect_git = "read-only"
protected = ["secrets"]
protected_names = [".tasks"]
allow_aliased_writes = false
unix_sockets = []
[network]
mode = "deny"
[[entry]]
path = "/usr"
access = "read"
[[entry]]
path = "vendor"
access = "deny"
[limits]
memory = "256M"
wall_clock = "1m"
[exec.outcomes]
network = "deny"
[[exec.rule]]
prefix = ["make", "deploy"]
decision = "deny"
match = [["make", "deploy"]]
[env]
clear = true
pass = ["GOPATH"]
`)
	got, err := f.Narrow(userBase())
	if err != nil {
		t.Fatal(err)
	}
	d := got.Defaults
	if d.Mode != policy.ReadOnly || d.Baseline != policy.Deny || d.ProtectGit != policy.GitReadOnly || d.Network.Mode != policy.NetDeny ||
		d.Limits.MemoryBytes != 256<<20 || d.Limits.WallClock != time.Minute || len(d.UnixSockets) != 0 || !slices.Contains(d.ExtraProtected, "secrets") ||
		!slices.Contains(d.ExtraProtectedNames, ".tasks") {
		t.Fatalf("narrowed defaults %+v", d)
	}
	wantR := []policy.Entry{{Path: "/usr", Access: policy.Read}, {Path: "/repo/vendor", Access: policy.Deny}}
	if !reflect.DeepEqual(d.Restrictions, wantR) || len(d.Entries) != 2 {
		t.Fatalf("restrictions %v entries %v", d.Restrictions, d.Entries)
	}
	// The /usr read restriction under a deny baseline opens nothing.
	p, err := policy.Resolve(policy.Request{}, d)
	if err != nil {
		t.Fatal(err)
	}
	if p.AccessAt("/usr/bin") != policy.Deny || p.AccessAt("/data/x") != policy.Read || p.AccessAt("/repo/vendor/x") != policy.Deny {
		t.Errorf("resolved layers %v", p.Layers)
	}
	cl, err := got.Exec.Compile()
	if err != nil {
		t.Fatal(err)
	}
	if cl.Outcomes()[execpolicy.Network] != execpolicy.Deny || cl.Classify([]string{"make", "deploy"}).Outcome != execpolicy.Deny {
		t.Errorf("exec not narrowed: %v", cl.Outcomes())
	}
	if !got.Env.Clear || slices.Contains(got.Env.Pass, "GOPATH") {
		t.Errorf("env %+v: clear on, GOPATH not added to Pass (it would skip the value checks)", got.Env)
	}
}

// An unknown key — one a later schema adds, unmeasured here — is refused.
func TestNarrowFailsClosedOnUnmeasuredKeys(t *testing.T) {
	f := parseT(t, `mode = "read-only"`)
	f.keys["home.share"] = true
	var we *WideningError
	if _, err := f.Narrow(userBase()); !errors.As(err, &we) || !strings.Contains(we.Widens[0], "home.share") {
		t.Fatalf("error %v", err)
	}
	// Every field of File and of the exec config is measured: a new one
	// must be added to narrowKeys and to Narrow before this passes.
	var names []string
	for _, s := range []reflect.Type{reflect.TypeFor[File](), reflect.TypeFor[FileNetwork](), reflect.TypeFor[FileEntry](),
		reflect.TypeFor[FileLimits](), reflect.TypeFor[FileEnv](), reflect.TypeFor[execpolicy.Config](), reflect.TypeFor[execpolicy.Rule]()} {
		for i := range s.NumField() {
			if tag := s.Field(i).Tag.Get("toml"); tag != "" && tag != "-" {
				names = append(names, s.Name()+"."+tag)
			}
		}
	}
	want := "File.mode File.baseline File.network File.entry File.protect_git File.protected File.protected_names File.allow_aliased_writes File.unix_sockets File.limits File.exec File.env File.home " +
		"FileNetwork.mode FileNetwork.domains FileEntry.path FileEntry.access FileLimits.wall_clock FileLimits.memory FileLimits.processes FileLimits.cpu_time FileLimits.tmp_size " +
		"FileEnv.pass FileEnv.set FileEnv.clear Config.outcomes Config.rule Rule.prefix Rule.decision Rule.reason Rule.match Rule.not_match"
	// The domains network's rules (measured in Narrow through policy.Resolve).
	want = strings.Replace(want, "FileNetwork.domains ", "FileNetwork.domains FileNetwork.allow FileNetwork.deny FileNetwork.reasons ", 1)
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("schema changed; measure the new keys in Narrow, then update this list:\n got %s\nwant %s", got, want)
	}
}

// FuzzNarrow: whatever an untrusted file says, Narrow either refuses it or
// yields a policy no wider than base — mode, network, limits, and the
// access at every path probed.
func FuzzNarrow(f *testing.F) {
	f.Add("mode = \"read-only\"\n[[entry]]\npath = \"/data/x\"\naccess = \"read\"\n")
	f.Add("baseline = \"deny\"\n[[entry]]\npath = \"~/.ssh\"\naccess = \"read\"\n")
	f.Add("[network]\nmode = \"domains\"\ndomains = []\n[limits]\nprocesses = 3\n")
	f.Add("[env]\nclear = true\npass = [\"HOME\"]\n")
	probes := []string{"/", "/repo", "/repo/x", "/repo/.git/hooks/p", "/data", "/data/y", "/home/u/.ssh/id", "/etc/passwd", "/tmp/rf/z"}
	f.Fuzz(func(t *testing.T, doc string) {
		file, err := Parse([]byte(doc), "toml")
		if err != nil {
			return
		}
		file.Home, file.Path = "/home/u", "/repo/.ringfence.toml"
		base := userBase()
		base.Defaults.TempDir = "/tmp/rf"
		got, err := file.Narrow(base)
		if err != nil {
			if !errors.Is(err, policy.ErrPolicy) {
				t.Fatalf("error %v is not ErrPolicy", err)
			}
			return
		}
		bp, err := policy.Resolve(policy.Request{}, base.Defaults)
		if err != nil {
			t.Fatal(err)
		}
		np, err := policy.Resolve(policy.Request{}, got.Defaults)
		if err != nil {
			t.Fatalf("narrowed defaults do not resolve: %v", err)
		}
		if np.Mode > bp.Mode || np.Network.Mode > bp.Network.Mode || np.AllowAliasedWrites && !bp.AllowAliasedWrites || len(np.UnixSockets) > len(bp.UnixSockets) {
			t.Fatalf("widened: %+v from %+v", np, bp)
		}
		if np.Limits.MemoryBytes == 0 || np.Limits.MemoryBytes > bp.Limits.MemoryBytes {
			t.Fatalf("memory limit %d from %d", np.Limits.MemoryBytes, bp.Limits.MemoryBytes)
		}
		for _, p := range probes {
			if np.AccessAt(p) > bp.AccessAt(p) {
				t.Fatalf("access at %s: %v, base %v", p, np.AccessAt(p), bp.AccessAt(p))
			}
		}
		if got.Env.Clear != (base.Env.Clear || got.Env.Clear) || len(got.Env.Pass) > len(base.Env.Pass) || len(got.Env.Set) > 0 {
			t.Fatalf("env widened: %+v", got.Env)
		}
	})
}

// The file `ringfence policy init` writes only narrows the CLI's built-in
// defaults, so it works in a workspace before anyone trusts it.
func TestInitTemplateOnlyNarrows(t *testing.T) {
	f := parseT(t, InitTemplate())
	base := Base{Defaults: policy.Defaults{Mode: policy.WorkspaceWrite, Root: "/repo", Baseline: policy.Read}}
	if _, err := f.Narrow(base); err != nil {
		t.Fatalf("the init template widens the built-in defaults: %v", err)
	}
}
