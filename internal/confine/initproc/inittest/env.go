//go:build linux

package inittest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/policy"
)

// Env is the world one attack runs against: a workspace root with a git
// directory and a subdirectory "work" (the landlock backend cannot let new
// entries be made directly in a root holding protected paths), a directory and a file outside the roots, denied paths with a
// secret, and listeners and a process on the host.
type Env struct {
	Root, Outside, Denied, DeniedFile string
	// DeniedLink is a denied path that is a symlink to Linked (a
	// credential directory kept in dotfiles and linked into home, as
	// stow does): the secret must not be readable by either name.
	DeniedLink, Linked string
	TCPPort, UDPPort   int
	UnixSock, Abstract string
	// DgramSock is a host datagram socket outside the roots (journald's,
	// /dev/log); HostBound a stream socket inside the workspace that a
	// host process (an IDE, a language server) listens on.
	DgramSock, HostBound string
	dgramGot             atomic.Bool
	Sleeper              *exec.Cmd
	// Mark is an argument unique to this Env, by which processes an
	// attack leaves behind are found (and only those).
	Mark   string
	udpGot atomic.Bool
	Canary *os.File
}

var envSeq atomic.Int64

// Secret is the content of every denied file.
const Secret = "s3cret-ringfence"

// Protected are the protected subpaths the test policy layers read-only.
var Protected = []string{".git/hooks", ".git/config", ".claude", ".bashrc"}

// NewEnv builds a fresh world; everything is torn down by t.Cleanup.
func NewEnv(t *testing.T) *Env {
	t.Helper()
	// Not under /tmp: the linux backend's private /tmp would hide the
	// whole world, and the attacks must meet the real read-only view.
	base, err := os.MkdirTemp("/var/tmp", "ringfence-attack-")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	e := &Env{Root: base + "/root", Outside: base + "/out", Denied: base + "/denied", DeniedFile: base + "/denied-file",
		DeniedLink: base + "/denied-link", Linked: base + "/dotfiles/kube"}
	for _, d := range []string{e.Root + "/.git/hooks", e.Root + "/work", e.Outside, e.Denied, e.Linked} {
		must(t, os.MkdirAll(d, 0o755))
	}
	files := map[string]string{
		e.Root + "/.git/config": "[core]\n", e.Root + "/.git/hooks/pre-push.sample": "#!/bin/sh\n",
		e.Root + "/file": "data\n", e.Root + "/work/file": "data\n", e.Outside + "/victim": "victim\n",
		e.Denied + "/secret": Secret + "\n", e.DeniedFile: Secret + "\n", e.Linked + "/secret": Secret + "\n",
	}
	must(t, os.Symlink("dotfiles/kube", e.DeniedLink))
	for p, c := range files {
		must(t, os.WriteFile(p, []byte(c), 0o644))
	}
	e.listen(t)
	e.Mark = fmt.Sprintf("%d.%d", 7000+envSeq.Add(1), os.Getpid())
	e.Sleeper = exec.Command("/bin/sleep", "300")
	e.Sleeper.Env = []string{"RF_SLEEPER=1"}
	must(t, e.Sleeper.Start())
	t.Cleanup(func() { _ = e.Sleeper.Process.Kill(); _ = e.Sleeper.Wait() })
	return e
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (e *Env) listen(t *testing.T) {
	tl, err := net.Listen("tcp4", "127.0.0.1:0")
	must(t, err)
	e.TCPPort = tl.Addr().(*net.TCPAddr).Port
	ul, err := net.ListenPacket("udp4", "127.0.0.1:0")
	must(t, err)
	e.UDPPort = ul.LocalAddr().(*net.UDPAddr).Port
	e.UnixSock = e.Outside + "/host.sock"
	xl, err := net.Listen("unix", e.UnixSock)
	must(t, err)
	e.Abstract = fmt.Sprintf("ringfence-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	al, err := net.Listen("unix", "@"+e.Abstract)
	must(t, err)
	e.HostBound = e.Root + "/work/ide.sock"
	hl, err := net.Listen("unix", e.HostBound)
	must(t, err)
	for _, l := range []net.Listener{tl, xl, al, hl} {
		go acceptAll(l)
	}
	e.DgramSock = e.Outside + "/host-dgram.sock"
	dl, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: e.DgramSock, Net: "unixgram"})
	must(t, err)
	go func() {
		buf := make([]byte, 64)
		for {
			n, err := dl.Read(buf)
			if err != nil {
				return
			}
			if bytes.Contains(buf[:n], []byte("token")) {
				e.dgramGot.Store(true)
			}
		}
	}()
	t.Cleanup(func() { hl.Close(); dl.Close() })
	go func() {
		buf := make([]byte, 64)
		for {
			n, _, err := ul.ReadFrom(buf)
			if err != nil {
				return
			}
			if bytes.Contains(buf[:n], []byte("token")) {
				e.udpGot.Store(true)
			}
		}
	}()
	t.Cleanup(func() { tl.Close(); ul.Close(); xl.Close(); al.Close() })
}

func acceptAll(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

// Vars are the environment variables the attack scripts read.
func (e *Env) Vars() []string {
	return []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "ROOT=" + e.Root, "OUT=" + e.Outside,
		"DENY=" + e.Denied, "DENYFILE=" + e.DeniedFile, "DENYLINK=" + e.DeniedLink, "LINKED=" + e.Linked,
		"TCP=" + strconv.Itoa(e.TCPPort), "UDP=" + strconv.Itoa(e.UDPPort),
		"USOCK=" + e.UnixSock, "ASOCK=" + e.Abstract, "DSOCK=" + e.DgramSock, "HSOCK=" + e.HostBound,
		"SLEEPER=" + strconv.Itoa(e.Sleeper.Process.Pid), "MARK=" + e.Mark,
	}
}

// Policy is the workspace-write policy the attacks run under: the root
// writable with the protected subpaths read-only, the denied paths denied.
func (e *Env) Policy(net policy.NetworkMode) *policy.Policy {
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: e.Root, Baseline: policy.Read,
		Network: policy.Network{Mode: net}}
	p.Layers = append(p.Layers,
		policy.Layer{Path: e.Root, Access: policy.Write, Origin: policy.FromMode},
		policy.Layer{Path: e.Denied, Access: policy.Deny, Origin: policy.FromDeployment},
		policy.Layer{Path: e.DeniedFile, Access: policy.Deny, Origin: policy.FromDeployment},
		policy.Layer{Path: e.DeniedLink, Access: policy.Deny, Origin: policy.FromDeployment})
	for _, rel := range Protected {
		p.Layers = append(p.Layers, policy.Layer{Path: e.Root + "/" + rel, Access: policy.Read, Origin: policy.FromProtected})
	}
	policy.SortLayers(p.Layers)
	return p
}

// UDPReceived reports whether the host's UDP listener got the token.
func (e *Env) UDPReceived() bool {
	for range 10 {
		if e.udpGot.Load() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// DgramReceived reports whether the host's datagram socket got the token.
func (e *Env) DgramReceived() bool {
	for range 10 {
		if e.dgramGot.Load() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// SurvivorPids are host processes whose argv contains marker; found ones
// are ours (the attack started them), and are killed by pid.
func SurvivorPids(marker string) []int {
	var out []int
	ents, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range ents {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), marker) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		out = append(out, pid)
	}
	return out
}

// KillPids kills the given pids (which a test itself caused to exist).
func KillPids(pids []int) {
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
