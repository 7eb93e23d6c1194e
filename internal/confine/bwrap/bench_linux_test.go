package bwrap_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/policy"
)

// BenchmarkConfineTrue is one full confined run of /bin/true: Confine
// (stat, seccomp, memfds, pipes), bwrap, the shim, status translation.
func BenchmarkConfineTrue(b *testing.B) {
	self, _ := os.Executable()
	if s := os.Getenv("RINGFENCE_BENCH_SHIM"); s != "" {
		self = s // a small binary built from Shim, closer to the real ringfence's start-up
	}
	p := bwrap.New(bwrap.Options{Self: self})
	if err := p.Available(); err != nil {
		b.Skip(err)
	}
	root := b.TempDir()
	pol := &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Layers: []policy.Layer{{Path: root, Access: policy.Write}}}
	for b.Loop() {
		runTrue(b, p, pol)
	}
}

// BenchmarkFirstRun is what a one-shot `ringfence run` pays: a fresh
// provider (its probe of bwrap included) and one confined /bin/true.
func BenchmarkFirstRun(b *testing.B) { benchFirstRun(b, "") }

// BenchmarkFirstRunCached is BenchmarkFirstRun with the probe remembered
// (Options.ProbeCache), as ringfence runs it.
func BenchmarkFirstRunCached(b *testing.B) { benchFirstRun(b, b.TempDir()) }

func benchFirstRun(b *testing.B, cache string) {
	self, _ := os.Executable()
	if err := bwrap.New(bwrap.Options{Self: self}).Available(); err != nil {
		b.Skip(err)
	}
	root := b.TempDir()
	pol := &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Layers: []policy.Layer{{Path: root, Access: policy.Write}}}
	for b.Loop() {
		p := bwrap.New(bwrap.Options{Self: self, ProbeCache: cache})
		if err := p.Available(); err != nil {
			b.Fatal(err)
		}
		runTrue(b, p, pol)
	}
}

func runTrue(b *testing.B, p *bwrap.Provider, pol *policy.Policy) {
	cmd, err := p.Confine(confine.Request{Argv: []string{"/bin/true"}, Policy: pol})
	if err != nil {
		b.Fatal(err)
	}
	c := exec.Command(cmd.Path, cmd.Args[1:]...)
	c.Env, c.Dir, c.ExtraFiles = cmd.Env, cmd.Dir, cmd.ExtraFiles
	if err := c.Start(); err != nil {
		b.Fatal(err)
	}
	for _, f := range cmd.ExtraFiles {
		_ = f.Close()
	}
	buf := make([]byte, 512)
	for {
		if _, err := cmd.Status.Read(buf); err != nil {
			break
		}
	}
	_ = c.Wait()
	cmd.Cleanup()
}

// BenchmarkBareBwrap is bwrap with an equivalent profile and no shim, for
// comparison.
func BenchmarkBareBwrap(b *testing.B) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		b.Skip(err)
	}
	root := b.TempDir()
	for b.Loop() {
		c := exec.Command("bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
			"--bind", root, root, "--unshare-all", "--die-with-parent", "--new-session", "--", "/bin/true")
		if err := c.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
