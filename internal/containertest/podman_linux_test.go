package containertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/testenv"
)

// podmanArgs are the flags every container here runs with (see DESIGN.md:
// runc, since crun refuses this host's hybrid cgroups; explicit ulimits,
// since root here lacks CAP_SYS_RESOURCE; no network).
func (b *box) podmanArgs(extra ...string) []string {
	args := []string{"--runtime", "runc",
		"--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096",
		"--network", "none", "--env", "HOME=/home/user"}
	if b.seccomp != "" {
		args = append(args, "--security-opt", "seccomp="+b.seccomp)
	}
	if b.user != "" {
		args = append(args, "--user", b.user)
	}
	if b.bare {
		// A scratch image has no programs: the runtime gives it a
		// /tmp, as a deployment would (`--tmpfs /tmp`, an emptyDir in
		// a pod). Podman gives the tmpfs the mode of its mountpoint in
		// the root, whatever mode= says: newBareBox makes that 1777.
		args = append(args, "--tmpfs", "/tmp:rw,mode=1777")
	}
	args = append(args, extra...)
	return append(args, "--rootfs", b.root)
}

// exec runs argv as the container's pid 1 (no shell in between) and
// returns its output and exit status.
func (b *box) exec(t *testing.T, argv ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"run", "--rm"}, b.podmanArgs()...)
	out, err := exec.CommandContext(ctx, "podman", append(args, argv...)...).CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("podman run: %v\n%s", err, out)
		}
		code = ee.ExitCode()
	}
	return string(out), code
}

var nameSeq atomic.Int64

// start runs argv detached as the container's pid 1 and returns the
// container's name; the container is removed when the test ends.
func (b *box) start(t *testing.T, argv ...string) string {
	t.Helper()
	name := fmt.Sprintf("rf-ct-%d-%d", os.Getpid(), nameSeq.Add(1))
	args := append([]string{"run", "-d", "--name", name}, b.podmanArgs()...)
	if out, err := exec.Command("podman", append(args, argv...)...).CombinedOutput(); err != nil {
		t.Fatalf("podman run -d: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("podman", "rm", "-f", "-t", "0", name).Run() })
	return name
}

// podman runs a podman subcommand and returns its trimmed output.
func podman(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("podman", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// waitFor polls until the host file exists (the container's sign that it
// got that far).
func (b *box) waitFor(t *testing.T, p string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(b.path(p)); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not appear within %v", p, within)
}

// newBareBox is a root holding only the static ringfence binary (and the
// empty directories mounts need: a scratch image with a workspace and a
// /tmp mountpoint; no program but ringfence).
func newBareBox(t *testing.T, seccompProfile, user string) *box {
	t.Helper()
	testenv.NeedRoot(t)
	for _, tool := range []string{"podman", "runc"} {
		_, err := exec.LookPath(tool)
		testenv.Need(t, tool, err)
	}
	bins := binaries(t)
	root := t.TempDir()
	for _, d := range []string{"bin", "ws", "tmp"} {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	must(t, os.Chmod(filepath.Join(root, "tmp"), 0o1777))
	copyFile(t, filepath.Join(bins, "ringfence"), filepath.Join(root, "bin/ringfence"), 0o755)
	if user != "" {
		must(t, os.Chown(filepath.Join(root, "ws"), 65534, 65534))
	}
	return &box{root: root, seccomp: seccompProfile, user: user, bare: true}
}
