// Command rfdriver runs one command under a ringfence backend with a
// workspace-write policy, the way `ringfence run` does but with nothing
// else linked in: bench/startup.sh uses it to time confinement itself
// while the full CLI is elsewhere.
//
//	rfdriver -backend linux|landlock -root DIR -- COMMAND [ARG...]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/landlock"
	"github.com/ringfence/ringfence/internal/confine/linux"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/policy"
)

func main() {
	if initproc.IsInit() {
		initproc.Main()
	}
	backend := flag.String("backend", "linux", "linux or landlock")
	root := flag.String("root", ".", "workspace root")
	allowNet := flag.Bool("allow-net", false, "network allow-all instead of deny")
	flag.Parse()
	os.Exit(run(*backend, *root, *allowNet, flag.Args()))
}

func run(backend, root string, allowNet bool, argv []string) int {
	root, err := filepath.Abs(root)
	if err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "usage: rfdriver -backend B -root DIR -- CMD...")
		return 2
	}
	var prov confine.Provider = linux.New(linux.Options{Quick: true})
	if backend == "landlock" {
		prov = landlock.New(landlock.Options{})
	}
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: root, Baseline: policy.Read}
	p.Layers = []policy.Layer{{Path: root, Access: policy.Write, Origin: policy.FromMode}}
	for _, rel := range policy.ProtectedSubpaths(policy.GitDefault) {
		p.Layers = append(p.Layers, policy.Layer{Path: root + "/" + rel, Access: policy.Read, Origin: policy.FromProtected})
	}
	policy.SortLayers(p.Layers)
	if allowNet {
		p.Network.Mode = policy.NetAllowAll
	}
	c, err := prov.Confine(confine.Request{Argv: argv, Dir: root, Policy: p, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 120
	}
	defer c.Cleanup()
	cmd := &exec.Cmd{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir, ExtraFiles: c.ExtraFiles,
		SysProcAttr: c.SysProcAttr, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 120
	}
	for _, f := range c.ExtraFiles {
		f.Close()
	}
	if err := c.Setup(cmd.Process.Pid); err != nil {
		_ = cmd.Process.Kill()
	}
	sum := status.Read(c.Status)
	_ = cmd.Wait()
	if sum.Failure != nil {
		fmt.Fprintf(os.Stderr, "rfdriver: %s at %s\n", sum.Failure.Reason, sum.Failure.Stage)
		return 125
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
