//go:build linux

package inittest

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/status"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// PlantedOnPath is the dot-PATH attack against a backend's own program
// lookup (execpath): the model plants "ls" in the workspace, the command's
// working directory, and the command's PATH holds a dot-relative entry
// ahead of the real directory. Resolving the bare name "ls" must run the
// real one. The control is a shell inside the same sandbox resolving the
// same name with the same PATH: it runs the plant, so the plant is there
// and executable and only the lookup stands between it and the command.
func PlantedOnPath(t *testing.T, prov confine.Provider, name string) {
	testenv.Need(t, name+" backend", prov.Available())
	e := NewEnv(t)
	dir := e.Root + "/work"
	if err := os.WriteFile(dir+"/ls", []byte("#!/bin/sh\necho PLANTED\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir+"/bin", 0o755); err == nil {
		_ = os.WriteFile(dir+"/bin/ls", []byte("#!/bin/sh\necho PLANTED\n"), 0o755)
	}
	real, err := exec.LookPath("ls")
	if err != nil {
		t.Fatalf("no ls on this host: %v", err)
	}
	realDir := real[:strings.LastIndex(real, "/")]
	for _, path := range []string{".:" + realDir, ":" + realDir, realDir + "::/bin", "bin:" + realDir} {
		runIt := func(argv ...string) Result {
			c, err := prov.Confine(confine.Request{Argv: argv, Dir: dir, Policy: e.Policy(policy.NetDeny),
				Env: []string{"PATH=" + path}})
			if err != nil {
				t.Fatalf("Confine: %v", err)
			}
			res, err := Run(c, nil)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			return res
		}
		// The control: the shell's lookup honours the dot entry (the
		// trailing-dot case "…::/bin" only reaches the plant for a name the
		// real directory lacks, so it is checked by the lookup alone).
		if !strings.HasPrefix(path, realDir) {
			if ctl := runIt("/bin/sh", "-c", "ls"); !strings.Contains(ctl.Stdout, "PLANTED") {
				t.Fatalf("control PATH=%q: the shell inside did not run the plant (exit %d, %q %q): the attack is not set up",
					path, ctl.Code, ctl.Stdout, ctl.Stderr)
			}
		}
		res := runIt("ls")
		if strings.Contains(res.Stdout, "PLANTED") {
			t.Fatalf("PATH=%q: the backend ran the planted ls from the workspace", path)
		}
		if res.Code != 0 || !strings.Contains(res.Stdout, "ls") {
			t.Fatalf("PATH=%q: the real ls did not run (exit %d, %q, %q)", path, res.Code, res.Stdout, res.Stderr)
		}
	}
	// Only dot entries: nothing is found, and the plant is not run either.
	c, err := prov.Confine(confine.Request{Argv: []string{"ls"}, Dir: dir, Policy: e.Policy(policy.NetDeny),
		Env: []string{"PATH=.:bin"}})
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	res, err := Run(c, nil)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if strings.Contains(res.Stdout, "PLANTED") || res.Status.Started || res.Status.Failure == nil ||
		res.Status.Failure.Reason != status.NotFound {
		t.Fatalf("PATH=.:bin: exit %d, %q, status %+v: want not found and the plant not run", res.Code, res.Stdout, res.Status)
	}
}
