package policyfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/ringfence/ringfence/policy"
)

const sampleTOML = `mode = "workspace-write"
baseline = "deny"
protect_git = "read-only"
protected = [".env", "secrets"]
protected_names = [".tasks"]
allow_aliased_writes = true
unix_sockets = ["/run/user/1000/bus"]

[network]
mode = "domains"
domains = ["proxy.golang.org", "*.github.com"]

[[entry]]
path = "/usr"
access = "read"

[[entry]]
path = "~/.ssh"
access = "deny"

[[entry]]
path = "build/out"
access = "write"

[limits]
wall_clock = "90s"
memory = "512M"
processes = 64
cpu_time = "1m"

[exec.outcomes]
network = "deny"

[[exec.rule]]
prefix = ["make", "test"]
decision = "allow"
match = [["make", "test"]]
not_match = [["make", "install"]]
`

const sampleJSON = `{
  "mode": "workspace-write",
  "baseline": "deny",
  "protect_git": "read-only",
  "protected": [".env", "secrets"],
  "protected_names": [".tasks"],
  "allow_aliased_writes": true,
  "unix_sockets": ["/run/user/1000/bus"],
  "network": {"mode": "domains", "domains": ["proxy.golang.org", "*.github.com"]},
  "entry": [
    {"path": "/usr", "access": "read"},
    {"path": "~/.ssh", "access": "deny"},
    {"path": "build/out", "access": "write"}
  ],
  "limits": {"wall_clock": "90s", "memory": "512M", "processes": 64, "cpu_time": "1m"},
  "exec": {
    "outcomes": {"network": "deny"},
    "rules": [{"prefix": ["make", "test"], "decision": "allow", "match": [["make", "test"]], "notMatch": [["make", "install"]]}]
  }
}
`

func TestTOMLAndJSONShareTheSchema(t *testing.T) {
	ft, err := Parse([]byte(sampleTOML), "toml")
	if err != nil {
		t.Fatal(err)
	}
	fj, err := Parse([]byte(sampleJSON), ".json")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ft, fj, cmpopts.IgnoreUnexported(File{})); diff != "" {
		t.Fatalf("TOML and JSON differ (-toml +json):\n%s", diff)
	}
	ft.Home = "/home/u"
	d, err := ft.Defaults("/repo")
	if err != nil {
		t.Fatal(err)
	}
	want := policy.Defaults{
		Mode: policy.WorkspaceWrite, Root: "/repo", Baseline: policy.Deny,
		Entries:    []policy.Entry{{Path: "/usr", Access: policy.Read}, {Path: "/home/u/.ssh", Access: policy.Deny}, {Path: "/repo/build/out", Access: policy.Write}},
		Network:    policy.Network{Mode: policy.NetDomains, Domains: []string{"proxy.golang.org", "*.github.com"}},
		Limits:     policy.Limits{WallClock: 90 * time.Second, MemoryBytes: 512 << 20, Processes: 64, CPUTime: time.Minute},
		ProtectGit: policy.GitReadOnly, ExtraProtected: []string{".env", "secrets"},
		ExtraProtectedNames: []string{".tasks"},
		AllowAliasedWrites:  true, UnixSockets: []string{"/run/user/1000/bus"},
	}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Fatalf("defaults (-want +got):\n%s", diff)
	}
	if len(ft.Exec.Rules) != 1 || ft.Exec.Rules[0].NotMatch[0][1] != "install" || ft.Exec.Outcomes["network"] != "deny" {
		t.Fatalf("exec %+v", ft.Exec)
	}
	if _, err := ft.Exec.Compile(); err != nil {
		t.Fatalf("exec config does not compile: %v", err)
	}
}

func wantFileError(t *testing.T, err error, line int, key, msg string) {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, policy.ErrPolicy) {
		t.Fatalf("error %v (%T), want *Error", err, err)
	}
	if fe.Line != line || fe.Key != key || !strings.Contains(fe.Msg, msg) {
		t.Fatalf("got line %d key %q msg %q; want line %d key %q msg containing %q", fe.Line, fe.Key, fe.Msg, line, key, msg)
	}
}

func TestErrorsHaveLines(t *testing.T) {
	for _, tc := range []struct {
		name, format, doc string
		line              int
		key, msg          string
	}{
		{"toml unknown top-level", "toml", "mode = \"read-only\"\n\nmdoe = \"x\"\n", 3, "mdoe", "unknown key"},
		{"toml unknown in second entry", "toml", "[[entry]]\npath = \"/a\"\naccess = \"read\"\n\n[[entry]]\npath = \"/b\"\naccess = \"read\"\n# note\npth = \"/c\"\n", 9, "entry[1].pth", "unknown key"},
		{"toml unknown in limits", "toml", "[limits]\nwall_clock = \"1s\"\nmemroy = \"1G\"\n", 3, "limits.memroy", "unknown key"},
		{"toml unknown table", "toml", "mode = \"read-only\"\n[netwrk]\nmode = \"deny\"\n", 2, "netwrk", "unknown key"},
		{"toml unknown in exec rule", "toml", "[exec]\n[[exec.rule]]\nprefix = [\"a\"]\ndecision = \"allow\"\nmatches = [[\"a\"]]\n", 5, "exec.rule[0].matches", "unknown key"},
		{"toml unknown in inline table", "toml", "entry = [\n  {path = \"/a\", access = \"read\"},\n  {path = \"/b\", acess = \"read\"},\n]\n", 3, "entry[1].acess", "unknown key"},
		{"toml unknown dotted", "toml", "network.mode = \"deny\"\nnetwork.domainz = []\n", 2, "network.domainz", "unknown key"},
		{"toml bad mode", "toml", "\nmode = \"rw\"\n", 2, "mode", "want one of read-only, workspace-write, danger-full-access"},
		{"toml int for mode", "toml", "mode = 3\n", 1, "mode", "want one of"},
		{"toml string for int", "toml", "[limits]\n\nprocesses = \"ten\"\n", 3, "limits.processes", "want an integer, got string"},
		{"toml bad size", "toml", "[limits]\nmemory = \"lots\"\n", 2, "limits.memory", "invalid size"},
		{"toml bad duration", "toml", "[limits]\nwall_clock = \"30\"\n", 2, "limits.wall_clock", "invalid duration"},
		{"toml table for string", "toml", "[[entry]]\npath = {x = 1}\n", 2, "entry[0].path", "want a string, got table"},
		{"toml float", "toml", "[limits]\nprocesses = 1.5\n", 2, "limits.processes", "want an integer, got float"},
		{"toml date", "toml", "mode = 1979-05-27\n", 1, "mode", "got date-time"},
		{"toml syntax", "toml", "mode = \"read-only\"\nbaseline = \n", 2, "", "TOML syntax"},
		{"toml duplicate", "toml", "mode = \"read-only\"\nmode = \"read-only\"\n", 2, "", "TOML syntax"},
		{"json unknown top-level", "json", "{\n  \"mode\": \"read-only\",\n  \"mdoe\": 1\n}", 3, "mdoe", "unknown key"},
		{"json unknown in entry", "json", "{\"entry\": [\n {\"path\": \"/a\", \"access\": \"read\"},\n {\"path\": \"/b\",\n  \"acces\": \"read\"}]}", 4, "entry[1].acces", "unknown key"},
		{"json type", "json", "{\n\"limits\": {\n\"processes\": \"9\"}}", 3, "limits.processes", "want an integer"},
		{"json array for table", "json", "{\"network\": []}", 1, "network", "want a table, got array"},
		{"json bad access", "json", "{\"entry\": [{\"path\": \"/a\",\n\"access\": \"rw\"}]}", 2, "entry[0].access", "want one of deny, read, write"},
		{"json duplicate key", "json", "{\"mode\": \"read-only\",\n \"mode\": \"read-only\"}", 2, "mode", "duplicate key"},
		{"json null", "json", "{\"mode\":\n null}", 2, "", "null"},
		{"json syntax", "json", "{\n\"mode\": \"read-only\",\n}", 3, "", "JSON syntax"},
		{"json truncated", "json", "{\"mode\": ", 1, "", "JSON syntax"},
		{"json trailing", "json", "{}\n{}", 2, "", "after the top-level"},
		{"json not an object", "json", "[1]", 1, "", "want a table"},
		{"json int overflow", "json", "{\"limits\": {\"processes\": 99999999999999999999}}", 1, "limits.processes", "want an integer, got float"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.doc), tc.format)
			wantFileError(t, err, tc.line, tc.key, tc.msg)
		})
	}
}

func TestDefaultsPaths(t *testing.T) {
	for _, tc := range []struct {
		path, home, want string
		ok               bool
	}{
		{"/etc/x/../y", "", "/etc/y", true},
		{"build", "", "/repo/build", true},
		{"../outside", "", "/outside", true},
		{"~/.aws", "/home/u", "/home/u/.aws", true},
		{"~", "/home/u", "/home/u", true},
		{"~/.aws", "", "", false},
		{"~root/.ssh", "/home/u", "", false},
		{"", "", "", false},
	} {
		f := &File{Home: tc.home, Entries: []FileEntry{{Path: tc.path, Access: ptr(policy.Deny)}}}
		d, err := f.Defaults("/repo")
		if tc.ok != (err == nil) || (tc.ok && d.Entries[0].Path != tc.want) {
			t.Errorf("%q (home %q): %+v, %v; want %q ok=%v", tc.path, tc.home, d.Entries, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, policy.ErrPolicy) {
			t.Errorf("%q: error %v is not ErrPolicy", tc.path, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestDefaultsRefusesUnusableFiles(t *testing.T) {
	for name, doc := range map[string]string{
		"missing access":          "[[entry]]\npath = \"/a\"\n",
		"domains without mode":    "[network]\ndomains = [\"a.org\"]\n",
		"domains mode, none":      "[network]\nmode = \"domains\"\n",
		"write baseline":          "baseline = \"write\"\n",
		"absolute protected":      "protected = [\"/etc\"]\n",
		"protected name, a path":  "protected_names = [\"a/b\"]\n",
		"relative unix socket":    "unix_sockets = [\"~x\"]\n",
		"negative memory is text": "[limits]\nmemory = \"-1\"\n",
	} {
		f, err := Parse([]byte(doc), "toml")
		if err == nil {
			_, err = f.Defaults("/repo")
		}
		if !errors.Is(err, policy.ErrPolicy) {
			t.Errorf("%s: accepted (%v)", name, err)
		}
	}
	if _, err := (&File{}).Defaults("repo"); !errors.Is(err, policy.ErrPolicy) {
		t.Errorf("relative root accepted: %v", err)
	}
}

func TestOmittedKeysAreStrict(t *testing.T) {
	f, err := Parse(nil, "toml")
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Defaults("/repo")
	if err != nil {
		t.Fatal(err)
	}
	if d.Mode != policy.ReadOnly || d.Baseline != policy.Read || d.Network.Mode != policy.NetDeny || d.Limits != (policy.Limits{}) {
		t.Fatalf("empty file defaults %+v", d)
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "policy.toml")
	write(t, user, "mode = \"read-only\"\n")
	local := filepath.Join(dir, ".ringfence.toml")
	write(t, local, "mode = \"workspace-write\"\nbogus = 1\n")
	_, err := LoadFile(local)
	var fe *Error
	if !errors.As(err, &fe) || fe.File != local || fe.Line != 2 || !strings.Contains(err.Error(), local+":2: \"bogus\": unknown key") {
		t.Fatalf("LoadFile error %v", err)
	}
	f, err := LoadFile(user)
	if err != nil || f.Path != user || *f.Mode != policy.ReadOnly {
		t.Fatalf("LoadFile = %+v, %v", f, err)
	}
	jsonFile := filepath.Join(dir, "p.json")
	write(t, jsonFile, `{"mode": "workspace-write"}`)
	if f, err := LoadFile(jsonFile); err != nil || *f.Mode != policy.WorkspaceWrite {
		t.Fatalf("LoadFile json = %+v, %v", f, err)
	}
	for name, content := range map[string]string{"p.yaml": "mode: x", "big.toml": strings.Repeat("#", 1<<20+1)} {
		path := filepath.Join(dir, name)
		write(t, path, content)
		if _, err := LoadFile(path); !errors.Is(err, policy.ErrPolicy) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := LoadFile(filepath.Join(dir, "absent.toml")); !errors.Is(err, os.ErrNotExist) || !errors.Is(err, policy.ErrPolicy) {
		t.Errorf("absent file: %v", err)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInitTemplateParsesAndResolves(t *testing.T) {
	f, err := Parse([]byte(InitTemplate()), "toml")
	if err != nil {
		t.Fatal(err)
	}
	f.Home = "/home/u"
	d, err := f.Defaults("/repo")
	if err != nil {
		t.Fatal(err)
	}
	d.TempDir = "/tmp/rf"
	p, err := policy.Resolve(policy.Request{}, d)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != policy.WorkspaceWrite || p.AccessAt("/home/u/.ssh/id_rsa") != policy.Deny || p.AccessAt("/repo/.env") != policy.Read || p.AccessAt("/repo/x") != policy.Write {
		t.Fatalf("template policy: %s", p.Summary())
	}
	if _, err := f.Exec.Compile(); err != nil {
		t.Fatalf("template exec config: %v", err)
	}
	for _, line := range strings.Split(InitTemplate(), "\n") {
		if len(line) > 80 {
			t.Errorf("template line longer than 80 columns: %q", line)
		}
	}
}
