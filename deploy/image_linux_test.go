//go:build linux

package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/containertest/profile"
	"github.com/ringfence/ringfence/internal/testenv"
)

// TestImage builds the image from ../Containerfile with podman, offline,
// from binaries this test builds, and runs it the way the SandboxTemplate
// does (non-root, read-only root, /tmp an empty scratch): the image starts,
// and `ringfence doctor` inside says which backend it picks under the
// runtime's default seccomp profile and under a Docker-like one that
// refuses new namespaces (docs/kubernetes.md's table).
func TestImage(t *testing.T) {
	for _, tool := range []string{"podman", "runc"} {
		_, err := exec.LookPath(tool)
		testenv.Need(t, tool, err)
	}
	ctx := t.TempDir()
	for bin, pkg := range map[string]string{"ringfence": "../cmd/ringfence", "healthcheck": "./healthcheck"} {
		build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(ctx, bin), pkg)
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	copyFile(t, "../Containerfile", filepath.Join(ctx, "Containerfile"))
	copyFile(t, "../.containerignore", filepath.Join(ctx, ".containerignore"))
	tag := fmt.Sprintf("localhost/ringfence-image-test:%d", os.Getpid())
	podman(t, "build", "--pull=never", "--network=none", "-q", "-f", filepath.Join(ctx, "Containerfile"), "-t", tag, ctx)
	t.Cleanup(func() { _ = exec.Command("podman", "rmi", "-f", tag).Run() })

	var cfg []struct {
		Config struct {
			User       string
			Entrypoint []string
			Cmd        []string
			Env        []string
		}
		RootFS struct{ Layers []string }
	}
	must(t, json.Unmarshal([]byte(podman(t, "image", "inspect", tag)), &cfg))
	c := cfg[0].Config
	if c.User != "65532:65532" || strings.Join(c.Entrypoint, " ") != "/ringfence" ||
		strings.Join(c.Cmd, " ") != "serve --root-dir /workspace" || len(cfg[0].RootFS.Layers) != 2 {
		t.Errorf("image config: %+v, %d layers", c, len(cfg[0].RootFS.Layers))
	}

	run := func(extra ...string) string {
		args := []string{"run", "--rm", "--runtime", "runc", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096",
			"--network", "none", "--read-only", "--tmpfs", "/tmp:rw,mode=1777"}
		return podman(t, append(append(args, extra...), tag, "doctor")...)
	}
	out := run()
	if !strings.Contains(out, "auto backend     linux") {
		t.Errorf("default profile: doctor does not pick linux:\n%s", out)
	}
	t.Logf("doctor, default profile:\n%s", out)
	out = run("--security-opt", "seccomp="+noNamespacesProfile(t))
	t.Logf("doctor, no namespaces:\n%s", out)
	if !strings.Contains(out, "auto backend     landlock") {
		t.Errorf("Docker-like profile: doctor does not pick landlock:\n%s", out)
	}
	// The probe in the image answers 1 when nothing serves /v1/health.
	probe := exec.Command("podman", "run", "--rm", "--runtime", "runc", "--ulimit", "nofile=4096:4096", "--ulimit", "nproc=4096:4096",
		"--network", "none", "--entrypoint", "/healthcheck", tag)
	if err := probe.Run(); err == nil {
		t.Error("healthcheck succeeded with no server")
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("healthcheck: %v", err)
	}
	// serve works under both profiles: sessions on linux, and on landlock
	// (one-shot runs) where the pod refuses new namespaces.
	t.Run("serve-default-profile", func(t *testing.T) { serveImage(t, tag, "linux") })
	t.Run("serve-no-namespaces", func(t *testing.T) {
		serveImage(t, tag, "landlock", "--security-opt", "seccomp="+noNamespacesProfile(t))
	})
}

func podman(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("podman", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	must(t, err)
	must(t, os.WriteFile(to, b, 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// noNamespacesProfile is the Docker-like seccomp profile that refuses new
// namespaces (internal/containertest/profile).
func noNamespacesProfile(t *testing.T) string { return profile.NoNamespacesFile(t) }
