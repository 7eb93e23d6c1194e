package bwrap_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/policy"
)

// host runs argv unconfined, to show that an attack works without the
// sandbox and so that the confined check is able to fail.
func host(t *testing.T, argv ...string) int {
	t.Helper()
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatalf("unconfined %v: %v (%s)", argv, err, out)
	}
	return 0
}

func self(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func content(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// fsAttack is one file attack: a script run with $O (a directory outside
// the roots, holding victim "v"), $R (the writable root) and $S (a denied
// directory holding "key"); ok says whether the host is intact.
type fsAttack struct {
	name   string
	script string
	intact func(o, r, s string) bool
}

var fsAttacks = []fsAttack{
	{"write outside", `echo pwn > "$O/new"`, func(o, r, s string) bool { return !exists(o + "/new") }},
	{"overwrite outside", `echo pwn > "$O/v"`, func(o, r, s string) bool { return content(o+"/v") == "victim" }},
	{"symlink out", `ln -s "$O" "$R/l" && echo pwn > "$R/l/new"`, func(o, r, s string) bool { return !exists(o + "/new") }},
	{"dotdot out", `echo pwn > "$R/../$(basename "$O")/new"`, func(o, r, s string) bool { return !exists(o + "/new") }},
	{"rename out", `mv "$O/v" "$R/stolen"`, func(o, r, s string) bool { return exists(o + "/v") }},
	{"rename in", `echo pwn > "$R/f" && mv "$R/f" "$O/v"`, func(o, r, s string) bool { return content(o+"/v") == "victim" }},
	{"hard link", `ln "$O/v" "$R/h" && echo pwn >> "$R/h"`, func(o, r, s string) bool { return content(o+"/v") == "victim" }},
	{"protected write", `echo pwn > "$R/.git/config"`, func(o, r, s string) bool { return content(r+"/.git/config") == "cfg" }},
	{"protected replace", `mv "$R/.git" "$R/old" ; rm -rf "$R/.git"; mkdir -p "$R/.git" && echo pwn > "$R/.git/config"`,
		func(o, r, s string) bool { return content(r+"/.git/config") == "cfg" }},
	{"root replace", `mv "$R" "$R.old" && mkdir -p "$R/.git" && echo pwn > "$R/.git/config"`,
		func(o, r, s string) bool { return content(r+"/.git/config") == "cfg" && !exists(r+".old") }},
	{"denied read", `cat "$S/key" > "$R/leak"`, func(o, r, s string) bool { return !strings.Contains(content(r+"/leak"), "secret") }},
	{"denied read via /proc/self/root", `cat "/proc/self/root$S/key" > "$R/leak"`,
		func(o, r, s string) bool { return !strings.Contains(content(r+"/leak"), "secret") }},
	{"denied file read", `cat "$R/.env" > "$R/leak"`, func(o, r, s string) bool { return !strings.Contains(content(r+"/leak"), "secret") }},
	{"denied file write", `echo pwn > "$R/.env"`, func(o, r, s string) bool { return content(r+"/.env") == "secret-env" }},
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// fsFixture lays out the directories for one attack and the policy: root
// writable, .git read-only, .env denied, S denied, O read-only.
func fsFixture(t *testing.T) (o, r, s string, pol *policy.Policy) {
	base := t.TempDir()
	o, r, s = base+"/outside", base+"/root", base+"/secret"
	write(t, o+"/v", "victim")
	write(t, r+"/.git/config", "cfg")
	write(t, r+"/.env", "secret-env")
	write(t, s+"/key", "secret")
	pol = &policy.Policy{Mode: policy.WorkspaceWrite, Root: r, Baseline: policy.Read, Layers: []policy.Layer{
		{Path: s, Access: policy.Deny, Origin: policy.FromDeployment},
		{Path: r, Access: policy.Write},
		{Path: r + "/.env", Access: policy.Deny, Origin: policy.FromProtected},
		{Path: r + "/.git", Access: policy.Read, Origin: policy.FromProtected},
	}}
	policy.SortLayers(pol.Layers)
	return o, r, s, pol
}

func TestFileAttacks(t *testing.T) {
	p := provider(t)
	for _, a := range fsAttacks {
		t.Run(a.name, func(t *testing.T) {
			o, r, s, _ := fsFixture(t)
			env := "O=" + o + " R=" + r + " S=" + s + "; export O R S; "
			host(t, "sh", "-c", env+a.script)
			if a.intact(o, r, s) {
				t.Fatalf("the attack does not work unconfined either, so this test cannot fail")
			}
			o, r, s, pol := fsFixture(t)
			env = "O=" + o + " R=" + r + " S=" + s + "; export O R S; "
			res := runIn(t, p, pol, "sh", "-c", env+a.script)
			if !res.status.Started {
				t.Fatalf("the command did not start: %+v %s", res.status, res.stderr)
			}
			if !a.intact(o, r, s) {
				t.Errorf("confined attack succeeded (exit %d, stderr %q)", res.code, res.stderr)
			}
		})
	}
}

// TestMissingProtectedPath: a protected path that does not exist yet
// cannot be mounted over without creating it on the host. By default the
// root is expanded around it, so it cannot be created; with NoExpand the
// gap is reported. Either way nothing is created on the host.
func TestMissingProtectedPath(t *testing.T) {
	p := provider(t)
	script := `mkdir "$0/.hg" && echo pwn > "$0/.hg/hgrc"; echo ok >> "$0/.git/../README"; cat "$0/README"`
	if _, r, _, _ := fsFixture(t); host(t, "sh", "-c", script, r) != 0 || !exists(r+"/.hg/hgrc") {
		t.Fatal("the attack does not work unconfined, so this test cannot fail")
	}
	_, r, _, pol := fsFixture(t)
	write(t, r+"/README", "readme\n")
	pol.Layers = append(pol.Layers, policy.Layer{Path: r + "/.hg", Access: policy.Read, Origin: policy.FromProtected})
	policy.SortLayers(pol.Layers)
	res := runIn(t, p, pol, "sh", "-c", script, r)
	if exists(r + "/.hg") {
		t.Fatalf("the missing protected path was created on the host (stderr %q)", res.stderr)
	}
	if content(r+"/README") != "readme\nok\n" || hasReason(res.cmd.Enforcement, "does not exist") {
		t.Errorf("expanded root: README %q, enforcement %+v", content(r+"/README"), res.cmd.Enforcement)
	}

	// Without expansion the shim's seccomp guard refuses creating it, and
	// the root stays writable for everything else.
	self, _ := os.Executable()
	guarded := bwrap.New(bwrap.Options{Self: self, NoExpand: true})
	_, r2, _, pol2 := fsFixture(t)
	write(t, r2+"/README", "readme\n")
	pol2.Layers = append(pol2.Layers, policy.Layer{Path: r2 + "/.hg", Access: policy.Read, Origin: policy.FromProtected})
	policy.SortLayers(pol2.Layers)
	res = runIn(t, guarded, pol2, "sh", "-c", script+`; echo new > "$0/new.txt"`, r2)
	if exists(r2+"/.hg") || content(r2+"/README") != "readme\nok\n" || content(r2+"/new.txt") != "new\n" {
		t.Fatalf("guarded: .hg created %v, README %q, new.txt %q (stderr %q)", exists(r2+"/.hg"), content(r2+"/README"), content(r2+"/new.txt"), res.stderr)
	}
	if hasReason(res.cmd.Enforcement, "does not exist") {
		t.Errorf("guarded: the path is protected, yet reported unprotected: %+v", res.cmd.Enforcement)
	}

	// Without supervision nothing can guard it: reported, never hidden.
	weak := bwrap.New(bwrap.Options{Self: self, NoExpand: true, NoSupervise: true})
	cmd, err := weak.Confine(confine.Request{Argv: []string{"true"}, Policy: pol2})
	if err != nil {
		t.Fatal(err)
	}
	supervise(t, cmd, "")
	if cmd.Enforcement.Files != confine.FilesPartial || !hasReason(cmd.Enforcement, r2+"/.hg does not exist") {
		t.Fatalf("NoSupervise: enforcement %+v does not report the unprotected path", cmd.Enforcement)
	}
}

func TestNetworkAttacks(t *testing.T) {
	p := provider(t)
	// Outside /tmp: the sandbox's /tmp is private, which would hide the
	// socket for a reason that has nothing to do with unix-socket rules.
	dir, err := os.MkdirTemp("/var/tmp", "ringfence-bwrap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	tcp := listen(t, "tcp", "127.0.0.1:0")
	abstract := listen(t, "unix", "@ringfence-bwrap-test-"+filepath.Base(dir))
	path := listen(t, "unix", dir+"/host.sock")
	for _, tt := range []struct {
		name, network, addr string
		refused             bool // false: bwrap cannot refuse it; Enforcement must say so
	}{
		{"tcp to host loopback", "tcp", tcp, true},
		{"abstract unix socket", "unix", abstract, true},
		{"unix socket by path", "unix", path, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			argv := []string{self(t), "__attack", "connect", tt.network, tt.addr}
			if host(t, argv...) != 0 {
				t.Fatal("the connection fails unconfined too, so this test cannot fail")
			}
			for _, mode := range []policy.NetworkMode{policy.NetDeny, policy.NetLoopback} {
				res := runIn(t, p, workspace(t, mode), argv...)
				t.Logf("network mode %d: exit %d (0 = connected) %s", mode, res.code, res.stderr)
				switch {
				case !res.status.Started:
					t.Fatalf("did not start: %+v %s", res.status, res.stderr)
				case tt.refused && res.code == 0:
					t.Errorf("network %d: connected to the host", mode)
				case !tt.refused && res.code == 0 && !hasReason(res.cmd.Enforcement, "host unix sockets"):
					t.Errorf("connected to a host unix socket and Enforcement %+v does not say so", res.cmd.Enforcement)
				}
			}
		})
	}
}

func TestUDPToHostLoopback(t *testing.T) {
	p := provider(t)
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	received := func() bool {
		_ = pc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		buf := make([]byte, 64)
		n, _, err := pc.ReadFrom(buf)
		return err == nil && string(buf[:n]) == "attack"
	}
	argv := []string{self(t), "__attack", "udp", pc.LocalAddr().String()}
	host(t, argv...)
	if !received() {
		t.Fatal("the datagram does not arrive unconfined, so this test cannot fail")
	}
	for _, mode := range []policy.NetworkMode{policy.NetDeny, policy.NetLoopback} {
		if res := runIn(t, p, workspace(t, mode), argv...); !res.status.Started {
			t.Fatalf("did not start: %+v", res.status)
		}
		if received() {
			t.Errorf("network mode %d: a datagram reached the host's loopback", mode)
		}
	}
}

// TestOwnUnixSockets: supervision refuses host sockets, not the command's
// own: one it makes in its workspace or private /tmp works, and so does a
// host socket the policy names.
func TestOwnUnixSockets(t *testing.T) {
	p := provider(t)
	dir, err := os.MkdirTemp("/var/tmp", "ringfence-bwrap-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	named := listen(t, "unix", dir+"/named.sock")
	pol := workspace(t, policy.NetDeny)
	for _, path := range []string{pol.Root + "/own.sock", "/tmp/own.sock"} {
		if res := runIn(t, p, pol, self(t), "__attack", "selfsock", path); res.code != 0 {
			t.Errorf("own socket %s: exit %d %s", path, res.code, res.stderr)
		}
	}
	argv := []string{self(t), "__attack", "connect", "unix", named}
	if res := runIn(t, p, pol, argv...); res.code == 0 {
		t.Fatal("connected to a host socket the policy does not name")
	}
	pol.UnixSockets = []string{named}
	if res := runIn(t, p, pol, argv...); res.code != 0 {
		t.Errorf("named host socket refused: exit %d %s", res.code, res.stderr)
	}
}

// listen accepts and discards connections until the test ends.
func listen(t *testing.T, network, addr string) string {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	return l.Addr().String()
}

func TestSignalHostProcess(t *testing.T) {
	p := provider(t)
	victim := func() *exec.Cmd {
		c := exec.Command("sleep", "60")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Process.Kill(); _ = c.Wait() })
		return c
	}
	v := victim()
	if host(t, self(t), "__attack", "kill", itoa(v.Process.Pid)) != 0 {
		t.Fatal("cannot signal a host process unconfined, so this test cannot fail")
	}
	v = victim()
	res := runIn(t, p, workspace(t, policy.NetDeny), self(t), "__attack", "kill", itoa(v.Process.Pid))
	time.Sleep(50 * time.Millisecond)
	if res.code == 0 || !alive(v) {
		t.Errorf("a confined command signalled a host process (exit %d)", res.code)
	}
}

func alive(c *exec.Cmd) bool {
	b, err := os.ReadFile("/proc/" + itoa(c.Process.Pid) + "/stat")
	return err == nil && !strings.Contains(string(b), ") Z ")
}

func TestLeakedEnvAndDescriptors(t *testing.T) {
	p := provider(t)
	t.Setenv("RINGFENCE_TEST_SECRET", "hunter2")
	if !strings.Contains(hostOut(t, nil, "env"), "hunter2") {
		t.Fatal("the secret is not in an unconfined child's environment, so this test cannot fail")
	}
	res := runIn(t, p, workspace(t, policy.NetDeny), "env")
	if !res.status.Started || strings.Contains(res.stdout, "hunter2") || strings.TrimSpace(res.stdout) != "PATH=/usr/bin:/bin" {
		t.Errorf("confined environment is %q", res.stdout)
	}

	leak, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer leak.Close()
	defer w.Close()
	if !strings.Contains(hostOut(t, []*os.File{w}, self(t), "__attack", "fds"), "open:") {
		t.Fatal("an inherited descriptor is not seen unconfined, so this test cannot fail")
	}
	// bwrap passes descriptors 3-6 through to its child; none may reach the command.
	res = runIn(t, p, workspace(t, policy.NetDeny), self(t), "__attack", "fds")
	if res.code != 3 {
		t.Errorf("the command holds a descriptor: %q (exit %d, %s)", res.stdout, res.code, res.stderr)
	}
}

func hostOut(t *testing.T, extra []*os.File, argv ...string) string {
	t.Helper()
	c := exec.Command(argv[0], argv[1:]...)
	c.ExtraFiles = extra
	out, _ := c.Output()
	return string(out)
}

// TestNestedNamespaceRefused: a nested user namespace is the usual way to
// regain capabilities; --disable-userns and the seccomp filter refuse it.
func TestNestedNamespaceRefused(t *testing.T) {
	p := provider(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare(1) is not installed")
	}
	if host(t, "unshare", "-U", "true") != 0 {
		t.Fatal("unshare -U fails unconfined too, so this test cannot fail")
	}
	if res := runIn(t, p, workspace(t, policy.NetDeny), "unshare", "-U", "true"); res.code == 0 || !res.status.Started {
		t.Errorf("nested user namespace created (exit %d, %+v)", res.code, res.status)
	}
}

// TestForgedRunnerFailure: a command that prints bwrap's failure text and
// exits 1 is still reported as started: the evidence is the status channel.
func TestForgedRunnerFailure(t *testing.T) {
	p := provider(t)
	res := runIn(t, p, workspace(t, policy.NetDeny), "sh", "-c", "echo 'bwrap: Can'\\''t mount proc' >&2; exit 1")
	if !res.status.Started || res.status.Failure != nil || res.code != 1 {
		t.Errorf("forged runner failure: %+v", res.status)
	}
}
