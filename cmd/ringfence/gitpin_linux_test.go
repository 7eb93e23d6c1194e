//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// A repository's .git cannot be renamed away and replaced by one with a
// hook of the command's own (which the person's next git commit would run
// outside the sandbox), on the backends that protect .git/hooks (landlock
// cannot: a documented gap), as root and (TestGitDirNonRoot) as an
// unprivileged user. The unconfined control shows the attack works.
func TestGitDirCannotBeReplaced(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("git is needed: ", err)
	}
	const attack = `mv .git .git.old && mkdir -p .git/hooks && echo pwn > .git/hooks/pre-commit`
	for _, backend := range []string{"linux", "bwrap", ""} {
		name := backend
		if name == "" {
			name = "unconfined-control"
		}
		t.Run(name, func(t *testing.T) {
			args := []string{"run", "-q", "--mode", "danger-full-access"}
			if backend != "" {
				needBackend(t, backend)
				args = []string{"run", "-q", "--backend", backend}
			}
			root := workspace(t)
			userHome(t)
			if out, err := exec.Command(git, "init", "-q", root).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v %s", err, out)
			}
			code, _, stderr := cli(t, root, "", append(args, "--", "sh", "-c", attack)...)
			_, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit"))
			planted := err == nil
			if backend != "" && planted {
				t.Errorf("a hook was planted in a replaced .git (exit %d, %s)", code, stderr)
			}
			if backend == "" && !planted {
				t.Errorf("control: the attack did not work unconfined (exit %d, %s)", code, stderr)
			}
		})
	}
}

// TestGitDirNonRoot reruns the .git replacement as an unprivileged user.
func TestGitDirNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestGitDirCannotBeReplaced$")
}
