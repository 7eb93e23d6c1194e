package containertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/containertest/profile"
	"github.com/ringfence/ringfence/internal/testenv"
)

// box is one container root on the host: what the container writes there
// is what the host-side checks read.
type box struct {
	root    string
	seccomp string // a profile file, or "" for the runtime's default
	user    string // --user for podman, or "" for root
	bare    bool   // only the ringfence binary: no busybox, no /tmp
}

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

// binaries builds the static ringfence binary and the attack probe once
// per test binary.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "ringfence-containertest-")
		if buildErr != nil {
			return
		}
		for name, pkg := range map[string]string{
			"ringfence": "github.com/ringfence/ringfence/cmd/ringfence",
			"attack":    "github.com/ringfence/ringfence/internal/containertest/testdata/attack",
		} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(buildDir, name), pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir
}

// busyboxApplets are linked into the container's /bin.
var busyboxApplets = []string{"sh", "sleep", "cat", "ls", "mkdir", "echo", "cp",
	"chmod", "touch", "stat", "id", "kill", "rm", "test", "["}

// newBox makes a container root: /bin (busybox, ringfence, attack), and
// the directories the attacks use. Needs root (podman), podman, runc and a
// static busybox.
func newBox(t *testing.T, seccompProfile, user string) *box {
	t.Helper()
	testenv.NeedRoot(t)
	for _, tool := range []string{"podman", "runc"} {
		_, err := exec.LookPath(tool)
		testenv.Need(t, tool, err)
	}
	_, err := os.Stat("/bin/busybox")
	testenv.Need(t, "busybox-static (/bin/busybox)", err)
	bins := binaries(t)
	root := t.TempDir()
	for _, d := range []string{"bin", "ws", "tmp", "proc", "dev", "sys", "etc", "out", "data", "srv", "home/user"} {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	must(t, os.Chmod(filepath.Join(root, "tmp"), 0o1777))
	copyFile(t, "/bin/busybox", filepath.Join(root, "bin/busybox"), 0o755)
	for _, a := range busyboxApplets {
		must(t, os.Symlink("busybox", filepath.Join(root, "bin", a)))
	}
	copyFile(t, filepath.Join(bins, "ringfence"), filepath.Join(root, "bin/ringfence"), 0o755)
	copyFile(t, filepath.Join(bins, "attack"), filepath.Join(root, "bin/attack"), 0o755)
	must(t, os.WriteFile(filepath.Join(root, "etc/passwd"),
		[]byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home/user:/bin/sh\n"), 0o644))
	if user != "" {
		// The unprivileged user owns what it must be able to write.
		for _, d := range []string{"ws", "out", "srv", "data", "home/user"} {
			must(t, os.Chown(filepath.Join(root, d), 65534, 65534))
		}
	}
	return &box{root: root, seccomp: seccompProfile, user: user}
}

// run runs script with /bin/sh in a fresh container on the box's root.
func (b *box) run(t *testing.T, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"run", "--rm"}, b.podmanArgs()...)
	args = append(args, "/bin/sh", "-c", script)
	out, err := exec.CommandContext(ctx, "podman", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("podman run: %v\n%s", err, out)
	}
	return string(out)
}

// path is a container path as the host sees it.
func (b *box) path(p string) string { return filepath.Join(b.root, p) }

// noNamespacesProfile is the Docker-like seccomp profile that refuses new
// namespaces (internal/containertest/profile).
func noNamespacesProfile(t *testing.T) string { return profile.NoNamespacesFile(t) }

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	data, err := os.ReadFile(from)
	must(t, err)
	must(t, os.WriteFile(to, data, mode))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// contains reports whether the host file holds s.
func (b *box) contains(p, s string) bool {
	data, _ := os.ReadFile(b.path(p))
	return strings.Contains(string(data), s)
}
