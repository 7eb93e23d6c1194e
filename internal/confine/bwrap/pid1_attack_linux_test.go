package bwrap_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/policy"
)

// bareProfile is the profile this backend used before these attacks were
// closed: bwrap's own init as pid 1 and /proc as bwrap leaves it. Running
// an attack under it is the control: the attack must work there.
var bareProfile = []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
	"--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
	"--unshare-net", "--die-with-parent", "--new-session", "--cap-drop", "ALL"}

// bare runs argv under plain bwrap with bareProfile; it returns the exit
// code (0: the attack worked) and stderr.
func bare(t *testing.T, argv ...string) (int, string) {
	t.Helper()
	// The test binary may live under /tmp, which the profile hides.
	args := append(append([]string{}, bareProfile...), "--ro-bind", argv[0], argv[0], "--")
	c := exec.Command("bwrap", append(args, argv...)...)
	c.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatalf("bare bwrap %v: %v (%s)", argv, err, out)
	}
	return 0, string(out)
}

// TestProcWritesRefused: bwrap's /proc is writable, so as root (mapped to
// host root) a command could write any sysctl — kernel.core_pattern makes
// the kernel run a program as host root — and any user can write its own
// and pid 1's /proc files. The files are only opened for writing, never
// written. The view's /proc is read-only: each open fails (EROFS), and so
// would /proc/sysrq-trigger's, which this kernel does not have.
func TestProcWritesRefused(t *testing.T) {
	p := provider(t)
	cases := []struct {
		path string
		root bool // the kernel lets only root open it, even unconfined
	}{
		{"/proc/sys/kernel/core_pattern", true}, // host-wide: host root
		{"/proc/sys/kernel/hostname", true},
		{"/proc/sys/net/ipv4/ip_forward", true},
		{"/proc/self/comm", false},
		{"/proc/self/oom_score_adj", false},
		{"/proc/self/clear_refs", false},
		{"/proc/1/comm", false},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			if c.root && os.Geteuid() != 0 {
				t.Skip("only root can open it for writing, even unconfined")
			}
			argv := []string{self(t), "__pid1", "openw", c.path}
			if code, out := bare(t, argv...); code != 0 {
				t.Fatalf("control: plain bwrap refuses it too (exit %d, %s), so this test cannot fail", code, out)
			}
			res := runIn(t, p, workspace(t, policy.NetDeny), argv...)
			if !res.status.Started || res.code != 3 {
				t.Errorf("opened %s for writing in the sandbox (exit %d, %s)", c.path, res.code, res.stderr)
			}
		})
	}
}

// TestPid1Attacks: under plain bwrap, pid 1 is bwrap's init — outside the
// shim's guard and connect supervision, same uid, dumpable — so the command
// can write code into it (/proc/1/mem), read it (environ,
// process_vm_readv), trace it, compare or take its descriptors and advise
// its memory; code run there would create protected
// names, connect to host sockets or outlive ringfence. Here pid 1 is the
// non-dumpable shim, and every one of these is refused.
func TestPid1Attacks(t *testing.T) {
	p := provider(t)
	res := runIn(t, p, workspace(t, policy.NetDeny), self(t), "__pid1", "whois1")
	if !strings.Contains(res.stdout, " "+bwrap.ShimArg+" ") || !strings.Contains(res.stdout, "ppid=1") {
		t.Fatalf("pid 1 is not the shim, or the command is not its child: %q", res.stdout)
	}
	for _, attack := range []string{"mem", "environ", "kcmp", "getfd", "madvise", "vmread", "seize"} {
		t.Run(attack, func(t *testing.T) {
			argv := []string{self(t), "__pid1", attack}
			if code, out := bare(t, argv...); code != 0 {
				t.Fatalf("control: the attack fails under plain bwrap too (exit %d, %s), so this test cannot fail", code, out)
			}
			res := runIn(t, p, workspace(t, policy.NetDeny), argv...)
			if !res.status.Started || res.code != 3 {
				t.Errorf("%s on pid 1 succeeded in the sandbox (exit %d, %s)", attack, res.code, res.stderr)
			}
		})
	}
}

// TestPinnedCarveOutParents: with git's default protection the .git
// directory is writable and only hooks/ and config are carve-outs, each its
// own mount. A mount moves along with a renamed parent, so `mv .git
// .git.old && mkdir .git` would leave a fresh, writable .git/config on the
// host. The directories between a root and a carve-out are pinned (bound
// over themselves: a mountpoint cannot be renamed), the deep ones too.
func TestPinnedCarveOutParents(t *testing.T) {
	p := provider(t)
	fixture := func(t *testing.T) (string, *policy.Policy) {
		root := t.TempDir()
		write(t, root+"/.git/config", "cfg")
		write(t, root+"/.git/hooks/README", "hooks")
		write(t, root+"/sub/deep/.git/config", "cfg")
		return root, &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Baseline: policy.Read, Layers: layers(
			w(root), r(root+"/.git/config"), r(root+"/.git/hooks"), r(root+"/sub/deep/.git/config"))}
	}
	for _, a := range []struct{ name, script, victim string }{
		{"replace .git", `mv "$0/.git" "$0/.git.old" ; rm -rf "$0/.git"; mkdir -p "$0/.git" && echo pwn > "$0/.git/config"`, "/.git/config"},
		{"replace a deep parent", `mv "$0/sub" "$0/sub.old" ; rm -rf "$0/sub"; mkdir -p "$0/sub/deep/.git" && echo pwn > "$0/sub/deep/.git/config"`,
			"/sub/deep/.git/config"},
	} {
		t.Run(a.name, func(t *testing.T) {
			r, _ := fixture(t)
			host(t, "sh", "-c", a.script, r)
			if content(r+a.victim) == "cfg" {
				t.Fatal("the attack does not work unconfined, so this test cannot fail")
			}
			r, pol := fixture(t)
			res := runIn(t, p, pol, "sh", "-c", a.script+`; echo ok > "$0/work"`, r)
			if !res.status.Started || content(r+"/work") != "ok\n" {
				t.Fatalf("the root is not writable: %+v %s", res.status, res.stderr)
			}
			if content(r+a.victim) != "cfg" {
				t.Errorf("the protected file was replaced (stderr %q)", res.stderr)
			}
		})
	}
}

// TestPinThroughALink: a directory to pin that is a link (planted by an
// earlier command) is not pinned: a pin is a read-write bind, and bwrap
// binding the path would bind whatever the link points to — here a host
// directory outside every writable root — read-write into the sandbox.
func TestPinThroughALink(t *testing.T) {
	p := provider(t)
	base := t.TempDir()
	o, root := base+"/outside", base+"/root"
	write(t, o+"/v", "victim")
	write(t, root+"/README", "readme")
	if err := os.Symlink("../outside", root+"/.git"); err != nil {
		t.Fatal(err)
	}
	script := `echo pwn > "$0/.git/v"`
	pol := &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Baseline: policy.Read, Layers: layers(w(root), r(root+"/.git/config"))}
	res := runIn(t, p, pol, "sh", "-c", script, root)
	if !res.status.Started || content(o+"/v") != "victim" {
		t.Fatalf("wrote through the link (started %v, stderr %q)", res.status.Started, res.stderr)
	}
	host(t, "sh", "-c", script, root)
	if content(o+"/v") == "victim" {
		t.Fatal("the write does not work unconfined, so this test cannot fail")
	}
}
