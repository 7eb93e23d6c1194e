package bwrap_test

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/policy"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// fakeTree is a fake host: path → kind. A trailing "/" in the paths given
// to tree marks a directory; parents of listed paths exist as directories;
// "name@target" is a symbolic link.
type fakeTree map[string]bwrap.Kind

func tree(paths ...string) fakeTree {
	kinds := fakeTree{"/": bwrap.Dir}
	for _, p := range paths {
		k := bwrap.File
		switch {
		case strings.HasSuffix(p, "/"):
			k = bwrap.Dir
		case strings.Contains(p, "@"):
			k, p = bwrap.Link, p[:strings.Index(p, "@")]
		}
		p = policy.Clean(p)
		kinds[p] = k
		for d := filepath.Dir(p); d != "/"; d = filepath.Dir(d) {
			kinds[d] = bwrap.Dir
		}
	}
	return kinds
}

// Stat follows links: a fake link's target is never there.
func (t fakeTree) Stat(p string) (bwrap.Kind, error) {
	if k := t[p]; k != bwrap.Link {
		return k, nil
	}
	return bwrap.Missing, nil
}

func (t fakeTree) List(dir string) ([]bwrap.Entry, error) {
	var out []bwrap.Entry
	for p, k := range t {
		if p != "/" && filepath.Dir(p) == dir {
			e := bwrap.Entry{Name: filepath.Base(p), Kind: k}
			if k == bwrap.Link {
				e.Target = "/elsewhere"
			}
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func fakeHost(paths ...string) bwrap.StatFunc { return tree(paths...).Stat }

var fakeFS = fakeHost("/usr/", "/bin/", "/lib/", "/lib64/", "/etc/passwd", "/etc/ld.so.cache", "/dev/null",
	"/dev/", "/proc/", "/tmp/", "/opt/ringfence", "/home/u/repo/.git/", "/home/u/repo/.env", "/home/u/repo/src/",
	"/home/u/.ssh/", "/home/u/my docs/a b/", "/data/ws/secret/pub/", "/tmp/rf-1234/")

func opts() bwrap.ArgOptions {
	return bwrap.ArgOptions{Stat: fakeFS, Shim: "/proc/self/fd/7", StatusFD: 4, ShimFD: 5, SeccompFD: 6}
}

func layers(ls ...policy.Layer) []policy.Layer {
	policy.SortLayers(ls)
	return ls
}

func w(p string) policy.Layer { return policy.Layer{Path: p, Access: policy.Write} }
func r(p string) policy.Layer {
	return policy.Layer{Path: p, Access: policy.Read, Origin: policy.FromProtected}
}
func d(p string) policy.Layer {
	return policy.Layer{Path: p, Access: policy.Deny, Origin: policy.FromDeployment}
}

var goldenCases = []struct {
	name string
	pol  policy.Policy
	req  confine.Request
}{
	{"workspace-write", policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", TempDir: "/tmp/rf-1234", Baseline: policy.Read,
		Layers: layers(w("/home/u/repo"), w("/tmp/rf-1234"), r("/home/u/repo/.git"), d("/home/u/repo/.env"), d("/home/u/.ssh"))},
		confine.Request{Argv: []string{"make", "test"}, Dir: "/home/u/repo/src", Env: []string{"PATH=/usr/bin:/bin", "HOME=/home/u"}}},
	{"read-only-loopback", policy.Policy{Mode: policy.ReadOnly, Root: "/home/u/repo", Baseline: policy.Read,
		Network: policy.Network{Mode: policy.NetLoopback}},
		confine.Request{Argv: []string{"ls", "-la"}, Env: []string{"PATH=/usr/bin"}}},
	{"allow-all", policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Read,
		Layers: layers(w("/home/u/repo")), Network: policy.Network{Mode: policy.NetAllowAll}},
		confine.Request{Argv: []string{"curl", "https://example.com"}}},
	{"baseline-deny", policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Deny,
		Layers: layers(r("/home/u/repo"), w("/home/u/repo/src"), r("/usr"), r("/bin"), r("/lib"), r("/lib64"))},
		confine.Request{Argv: []string{"sh", "-c", "echo hi"}, Env: []string{"PATH=/bin", "PWD=/home/u/repo"}}},
	{"spaces", policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/my docs", Baseline: policy.Read,
		Layers: layers(w("/home/u/my docs"), d("/home/u/my docs/a b"))},
		confine.Request{Argv: []string{"touch", "a file"}, Env: []string{"X=a b=c"}}},
	{"deny-write-deny", policy.Policy{Mode: policy.WorkspaceWrite, Root: "/data/ws", Baseline: policy.Read,
		Layers: layers(d("/data"), w("/data/ws"), d("/data/ws/secret"), r("/data/ws/secret/pub"))},
		confine.Request{Argv: []string{"true"}}},
	{"missing-protected", policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Read,
		Layers: layers(w("/home/u/repo"), r("/home/u/repo/.git"), r("/home/u/repo/.hg"), d("/home/u/repo/.netrc"), r("/home/u/nothere"))},
		confine.Request{Argv: []string{"true"}}},
}

// expandTree is the host the "expanded" golden cases list from.
var expandTree = tree("/usr/", "/tmp/", "/dev/null", "/opt/ringfence", "/home/u/repo/.git/", "/home/u/repo/src/main.go",
	"/home/u/repo/README", "/home/u/repo/link@", "/home/u/repo/sub/deep/x", "/home/u/repo/sub/other/")

func TestArgsGolden(t *testing.T) {
	cases := append([]struct {
		name string
		pol  policy.Policy
		req  confine.Request
	}{}, goldenCases...)
	cases = append(cases, struct {
		name string
		pol  policy.Policy
		req  confine.Request
	}{"missing-protected-expanded", policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Read,
		Layers: layers(w("/home/u/repo"), r("/home/u/repo/.git"), r("/home/u/repo/.hg"), d("/home/u/repo/sub/deep/.env"))},
		confine.Request{Argv: []string{"true"}}}, struct {
		name string
		pol  policy.Policy
		req  confine.Request
	}{"workspace-write-supervised", policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", TempDir: "/tmp/rf-1234",
		Baseline: policy.Read, UnixSockets: []string{"/run/user/1000/agent.sock"}, Network: policy.Network{Mode: policy.NetLoopback},
		Layers: layers(w("/home/u/repo"), w("/tmp/rf-1234"), r("/home/u/repo/.git"), d("/home/u/repo/.env"), d("/home/u/.ssh"))},
		confine.Request{Argv: []string{"make", "test"}, Dir: "/home/u/repo/src", Env: []string{"PATH=/usr/bin:/bin"}}}, struct {
		name string
		pol  policy.Policy
		req  confine.Request
	}{"domains", policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Read,
		Network: policy.Network{Mode: policy.NetDomains, Domains: []string{"pkg.test"}},
		Layers:  layers(w("/home/u/repo"), r("/home/u/repo/.git"))},
		confine.Request{Argv: []string{"curl", "https://pkg.test/"}, Env: []string{"PATH=/usr/bin:/bin"}}})
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			o := opts()
			if strings.HasSuffix(tt.name, "-expanded") {
				o.Stat, o.List = expandTree.Stat, expandTree.List
			}
			o.SuperviseUnix = strings.HasSuffix(tt.name, "-supervised")
			if tt.name == "domains" {
				o.HandoffFD, o.ResolvConf = 8, "/tmp/ringfence-resolv-1.conf"
			}
			spec, err := bwrap.Plan(&tt.pol, tt.req, o)
			if err != nil {
				t.Fatal(err)
			}
			if spec.Args[spec.Split] != "--" {
				t.Fatalf("Split %d does not point at --", spec.Split)
			}
			enf, _ := json.MarshalIndent(spec.Enforcement, "", "  ")
			got := strings.Join(lines(spec.Args), "\n") + "\n\n" + string(enf) + "\n"
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// arity is how many operands each bwrap option takes.
var arity = map[string]int{"--sock": 1, "--unset": 1, "--ro-bind": 2, "--bind": 2, "--setenv": 2, "--symlink": 2, "--tmpfs": 1, "--dev": 1, "--proc": 1,
	"--remount-ro": 1, "--chdir": 1, "--json-status-fd": 1, "--seccomp": 1, "--cap-drop": 1, "--cap-add": 1, "--proxy": 1}

// lines shows one option and its operands per line, then the command, with
// arguments that hold a space quoted.
func lines(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--" && i+2 < len(args) && args[i+2] == bwrap.ShimArg: // bwrap's separator: the shim and its descriptor
			out = append(out, "--", strings.Join(quote(args[i+1:i+4]), " "))
			i += 3
		case args[i] == "--": // the shim's separator: the command
			return append(out, "-- "+strings.Join(quote(args[i+1:]), " "))
		default:
			n := arity[args[i]]
			out = append(out, strings.Join(quote(args[i:i+1+n]), " "))
			i += n
		}
	}
	return out
}

func quote(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " \t") || a == "" {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return out
}

func TestArgsErrors(t *testing.T) {
	ok := policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Layers: layers(w("/home/u/repo"))}
	tests := []struct {
		name string
		pol  *policy.Policy
		req  confine.Request
		opts bwrap.ArgOptions
		want error
	}{
		{"danger", &policy.Policy{Mode: policy.DangerFullAccess}, confine.Request{Argv: []string{"true"}}, opts(), confine.ErrNotConfining},
		{"nil policy", nil, confine.Request{Argv: []string{"true"}}, opts(), policy.ErrPolicy},
		{"empty argv", &ok, confine.Request{}, opts(), policy.ErrPolicy},
		{"env without name", &ok, confine.Request{Argv: []string{"true"}, Env: []string{"=x"}}, opts(), policy.ErrPolicy},
		{"env without =", &ok, confine.Request{Argv: []string{"true"}, Env: []string{"X"}}, opts(), policy.ErrPolicy},
		{"NUL in env", &ok, confine.Request{Argv: []string{"true"}, Env: []string{"X=a\x00--bind"}}, opts(), policy.ErrPolicy},
		{"NUL in layer", &policy.Policy{Mode: policy.ReadOnly, Root: "/r", Layers: []policy.Layer{d("/r/a\x00b")}},
			confine.Request{Argv: []string{"true"}}, opts(), policy.ErrPolicy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := bwrap.Args(tt.pol, tt.req, tt.opts); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	boom := errors.New("EACCES")
	o := opts()
	o.Stat = func(string) (bwrap.Kind, error) { return bwrap.Missing, boom }
	if _, err := bwrap.Args(&ok, confine.Request{Argv: []string{"true"}}, o); !errors.Is(err, boom) {
		t.Errorf("stat error: err = %v, want it passed on", err)
	}
	o = opts()
	o.Shim = "relative"
	if _, err := bwrap.Args(&ok, confine.Request{Argv: []string{"true"}}, o); err == nil {
		t.Error("a relative shim path was accepted")
	}
}

// mounts lists (flag, destination) pairs of mount arguments in order.
func mounts(args []string) [][2]string {
	var out [][2]string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--bind", "--ro-bind":
			out = append(out, [2]string{args[i], args[i+2]})
			i += 2
		case "--tmpfs", "--dev", "--proc", "--remount-ro":
			out = append(out, [2]string{args[i], args[i+1]})
			i++
		case "--":
			return out
		}
	}
	return out
}

func TestDeepestWins(t *testing.T) {
	pol := policy.Policy{Mode: policy.WorkspaceWrite, Root: "/data/ws", Baseline: policy.Read,
		Layers: layers(r("/data/ws/secret/pub"), d("/data/ws/secret"), w("/data/ws"), d("/data"))}
	args, err := bwrap.Args(&pol, confine.Request{Argv: []string{"true"}}, opts())
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"--ro-bind", "/"}, {"--dev", "/dev"}, {"--proc", "/proc"}, {"--tmpfs", "/tmp"}, {"--tmpfs", "/data"},
		{"--tmpfs", "/dev/shm"}, {"--bind", "/data/ws"}, {"--tmpfs", "/data/ws/secret"}, {"--ro-bind", "/data/ws/secret/pub"},
		{"--remount-ro", "/data/ws/secret"}, {"--remount-ro", "/data"}, {"--remount-ro", "/proc"}}
	if diff := cmp.Diff(want, mounts(args)); diff != "" {
		t.Errorf("mount order (-want +got):\n%s", diff)
	}
}

func TestEnforcement(t *testing.T) {
	base := policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Read, Layers: layers(w("/home/u/repo"))}
	tests := []struct {
		name    string
		mutate  func(p *policy.Policy, o *bwrap.ArgOptions)
		files   confine.Files
		network confine.Net
	}{
		{"unix sockets refused, loopback", func(p *policy.Policy, o *bwrap.ArgOptions) {
			o.UnixSocketsRefused, p.Network.Mode = true, policy.NetLoopback
		}, confine.FilesPartial, confine.NetFull}, // no shim: names at depth are not held
		{"unix sockets open", func(p *policy.Policy, o *bwrap.ArgOptions) { p.Network.Mode = policy.NetLoopback },
			confine.FilesPartial, confine.NetFull},
		{"unix sockets supervised", func(p *policy.Policy, o *bwrap.ArgOptions) {
			o.SuperviseUnix, p.Network.Mode = true, policy.NetLoopback
		}, confine.FilesFull, confine.NetFull},
		{"deny has loopback", func(p *policy.Policy, o *bwrap.ArgOptions) { o.UnixSocketsRefused = true },
			confine.FilesPartial, confine.NetLoopbackOnly},
		{"domains", func(p *policy.Policy, o *bwrap.ArgOptions) {
			o.UnixSocketsRefused, p.Network.Mode = true, policy.NetDomains
			o.HandoffFD, o.ResolvConf = 8, "/tmp/ringfence-resolv-1.conf"
		},
			confine.FilesPartial, confine.NetFull}, // the shim hosts the listeners
		{"allow-all", func(p *policy.Policy, o *bwrap.ArgOptions) {
			o.UnixSocketsRefused, p.Network.Mode = true, policy.NetAllowAll
		},
			confine.FilesPartial, confine.NetNone},
		{"missing protected", func(p *policy.Policy, o *bwrap.ArgOptions) {
			o.UnixSocketsRefused = true
			p.Layers = layers(w("/home/u/repo"), r("/home/u/repo/.hg"))
		}, confine.FilesPartial, confine.NetLoopbackOnly},
		{"missing read outside roots is harmless", func(p *policy.Policy, o *bwrap.ArgOptions) {
			o.UnixSocketsRefused = true
			p.Layers = layers(w("/home/u/repo"), d("/home/u/nothere"))
		}, confine.FilesPartial, confine.NetLoopbackOnly},
		{"supervised holds names", func(p *policy.Policy, o *bwrap.ArgOptions) {
			o.SuperviseUnix = true
			p.Layers = layers(w("/home/u/repo"), d("/home/u/nothere"))
		}, confine.FilesFull, confine.NetLoopbackOnly},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, o := base, opts()
			tt.mutate(&p, &o)
			spec, err := bwrap.Plan(&p, confine.Request{Argv: []string{"true"}}, o)
			if err != nil {
				t.Fatal(err)
			}
			if e := spec.Enforcement; e.Files != tt.files || e.Network != tt.network || (e.Files != confine.FilesFull) != hasFileReason(e) {
				t.Errorf("enforcement %+v, want files %s network %s", e, tt.files, tt.network)
			}
			hasNet := slicesContains(spec.Args, "--unshare-net")
			if hasNet == (p.Network.Mode == policy.NetAllowAll) {
				t.Errorf("--unshare-net present=%v under network mode %d", hasNet, p.Network.Mode)
			}
		})
	}
}

func hasFileReason(e confine.Enforcement) bool {
	for _, r := range e.Reasons {
		if !strings.HasPrefix(r, "network") {
			return true
		}
	}
	return false
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func hasReason(e confine.Enforcement, sub string) bool {
	for _, r := range e.Reasons {
		if strings.Contains(r, sub) {
			return true
		}
	}
	return false
}

// The domains network without the handoff descriptor or the stub's
// resolv.conf is refused, never planned as a network-less sandbox.
func TestDomainsNeedsHandoff(t *testing.T) {
	pol := policy.Policy{Mode: policy.WorkspaceWrite, Root: "/home/u/repo", Baseline: policy.Read,
		Network: policy.Network{Mode: policy.NetDomains, Domains: []string{"pkg.test"}}, Layers: layers(w("/home/u/repo"))}
	for _, o := range []bwrap.ArgOptions{opts(), func() bwrap.ArgOptions { o := opts(); o.HandoffFD = 7; return o }(),
		func() bwrap.ArgOptions { o := opts(); o.ResolvConf = "/x/resolv.conf"; return o }()} {
		if _, err := bwrap.Plan(&pol, confine.Request{Argv: []string{"true"}}, o); err == nil {
			t.Fatalf("planned domains with %+v", o)
		}
	}
}
