package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// goModule writes a tiny module with a test into a fresh workspace.
func goModule(t *testing.T, ws string) {
	t.Helper()
	files := map[string]string{
		"go.mod":       "module tiny\n\ngo 1.21\n",
		"tiny.go":      "package tiny\n\nfunc Add(a, b int) int { return a + b }\n",
		"tiny_test.go": "package tiny\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n",
	}
	for name, c := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goPath is a PATH holding the go command that runs these tests.
func goPath(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	if real, err := filepath.EvalSymlinks(gobin); err == nil {
		gobin = real
	}
	return "PATH=" + filepath.Dir(gobin) + ":/usr/bin:/bin"
}

// snapshotHome is every path under home but ringfence's own state, with
// its mode and content: the real home must come out byte for byte the same.
func snapshotHome(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	state := filepath.Join(home, ".local", "state", "ringfence")
	_ = filepath.Walk(home, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if p == state || p == filepath.Join(home, ".cache", "ringfence") {
			return filepath.SkipDir // ringfence's own state and probe cache
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			v += string(b)
		}
		out[p] = v
		return nil
	})
	return out
}

func sameHome(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range after {
		if before[k] != v {
			t.Errorf("the real home changed at %s", k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			t.Errorf("the real home lost %s", k)
		}
	}
}

// A toolchain works confined on every backend: go env GOCACHE names a
// writable place, go test passes twice (the second warm), npm's cache is
// writable, and writes to start-up files and caches under home never
// reach the real home (a private layer on linux; refused, with the caches
// redirected, on bwrap 0.8 and landlock).
func TestRunHomeToolchains(t *testing.T) {
	home := os.Getenv("HOME")
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("orig\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := goPath(t)
	// ringfence's own state lives under home by design; made first so the
	// snapshot compares only what commands could have changed.
	if err := os.MkdirAll(filepath.Join(home, ".local", "state", "ringfence"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			needBackend(t, b)
			ws := workspace(t)
			goModule(t, ws)
			before := snapshotHome(t, home)
			var took [2]time.Duration
			for i := range 2 {
				start := time.Now()
				code, res := runJSON(t, ws, "--backend", b, "--env", path, "--", "sh", "-c",
					`set -e; c=$(go env GOCACHE); mkdir -p "$c"; touch "$c/probe"; go build ./... `)
				took[i] = time.Since(start)
				if code != 0 {
					t.Fatalf("run %d: go build: exit %d: %s %s %v", i, code, res.Stdout, res.Stderr, res.Enforcement.Reasons)
				}
			}
			t.Logf("%s: go build cold %v, warm %v", b, took[0], took[1])
			code, res := runJSON(t, ws, "--backend", b, "--", "sh", "-c",
				`c=$(npm config get cache) && mkdir -p "$c" && echo x > "$c/probe" && echo "$c"`)
			if code != 0 {
				t.Fatalf("npm cache: exit %d: %s %s", code, res.Stdout, res.Stderr)
			}
			_, _ = runJSON(t, ws, "--backend", b, "--", "sh", "-c",
				`echo planted >> ~/.bashrc; mkdir -p ~/.cache/go-build ~/.npm; echo x > ~/.cache/go-build/x; echo x > ~/.npm/x`)
			sameHome(t, before, snapshotHome(t, home))
			if b == "linux" {
				code, res := runJSON(t, ws, "--backend", b, "--", "sh", "-c", `grep -q planted ~/.bashrc && test -f ~/.npm/x`)
				if code != 0 {
					t.Fatalf("the private layer did not keep the writes: %s", res.Stderr)
				}
				code, out, errOut := cli(t, ws, "", "cache", "clear")
				if code != 0 || !strings.Contains(out, "removed") {
					t.Fatalf("cache clear: %d %s %s", code, out, errOut)
				}
				code, _ = runJSON(t, ws, "--backend", b, "--", "sh", "-c", `! grep -q planted ~/.bashrc && grep -q orig ~/.bashrc`)
				if code != 0 {
					t.Fatal("after cache clear the layer still had the writes")
				}
			}
		})
	}
}

// The same writes unconfined do change the home: the test above can fail.
func TestRunHomeControl(t *testing.T) {
	home := t.TempDir()
	c := exec.Command("sh", "-c", `echo planted >> ~/.bashrc`)
	c.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(home + "/.bashrc"); string(b) != "planted\n" {
		t.Fatalf("control: %q", b)
	}
}

// Under --mount-path the command sees the workspace there (linux, bwrap);
// landlock, which cannot mount, says so.
func TestRunMountPath(t *testing.T) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			needBackend(t, b)
			ws := workspace(t)
			goModule(t, ws)
			script := `test "$(pwd)" = /workspace && cat /workspace/go.mod`
			code, res := runJSON(t, ws, "--backend", b, "--mount-path", "/workspace", "--", "sh", "-c", script)
			if b == "landlock" {
				if !strings.Contains(strings.Join(res.Enforcement.Reasons, "\n"), "not at /workspace") {
					t.Fatalf("landlock does not say the workspace is at its real path: %v", res.Enforcement.Reasons)
				}
				return
			}
			if code != 0 || !strings.Contains(res.Stdout, "module tiny") {
				t.Fatalf("exit %d: %s %s", code, res.Stdout, res.Stderr)
			}
		})
	}
}

// A workspace under /tmp starts in read-only mode, and --write and
// --read-only paths under /tmp are visible, on every backend.
func TestRunTmpPaths(t *testing.T) {
	for _, b := range backends {
		t.Run(b, func(t *testing.T) {
			needBackend(t, b)
			base, err := os.MkdirTemp("/tmp", "ringfence-cli-tmp-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(base) })
			ws, w, ro := base+"/ws", base+"/w", base+"/ro"
			for _, d := range []string{ws, w, ro} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(d+"/f", []byte("data\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			code, res := runJSON(t, ws, "--backend", b, "--mode", "read-only", "--", "cat", "f")
			if code != 0 || res.Stdout != "data\n" {
				t.Fatalf("read-only workspace under /tmp: exit %d %q %s", code, res.Stdout, res.Stderr)
			}
			code, res = runJSON(t, ws, "--backend", b, "--write", w, "--read-only", ro, "--", "sh", "-c",
				"set -e; cat "+ro+"/f; echo new > "+w+"/new; ! touch "+ro+"/x")
			if code != 0 {
				t.Fatalf("--write/--read-only under /tmp: exit %d %s", code, res.Stderr)
			}
			if _, err := os.Stat(w + "/new"); err != nil {
				t.Fatalf("the --write path under /tmp: %v", err)
			}
			if want := map[string]string{"linux": "discarded", "bwrap": "discarded", "landlock": "host"}[b]; res.Enforcement.Scratch != want {
				t.Errorf("scratch %q, want %q", res.Enforcement.Scratch, want)
			}
			if said := strings.Contains(res.Narration, "/tmp outside $TMPDIR are discarded"); said != (b != "landlock") {
				t.Errorf("narration %q: says /tmp is discarded: %v", res.Narration, said)
			}
		})
	}
}

// --tmp-size bounds the private /tmp: filling it ends in ENOSPC.
func TestRunTmpSize(t *testing.T) {
	for _, b := range []string{"linux", "bwrap"} {
		t.Run(b, func(t *testing.T) {
			needBackend(t, b)
			ws := workspace(t)
			start := time.Now()
			code, res := runJSON(t, ws, "--backend", b, "--tmp-size", "1M", "--", "sh", "-c",
				"dd if=/dev/zero of=/tmp/fill bs=1M count=64 2>&1")
			if code == 0 || !strings.Contains(res.Stdout+res.Stderr, "No space left") {
				t.Fatalf("exit %d: %s %s", code, res.Stdout, res.Stderr)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("filling took %v", d)
			}
		})
	}
}

// [home] share opts a cache into sharing with the host (linux: bound over
// the private layer); a directory of programs is refused before anything
// runs. [limits] tmp_size bounds the private /tmp.
func TestPolicyFileHomeShareAndTmpSize(t *testing.T) {
	needBackend(t, "linux")
	home := os.Getenv("HOME")
	shared := filepath.Join(home, ".cache", "go-build")
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	pf := filepath.Join(t.TempDir(), "p.toml")
	write := func(s string) {
		if err := os.WriteFile(pf, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mode = \"workspace-write\"\n[home]\nshare = [\"~/.cache/go-build\"]\n[limits]\ntmp_size = \"1M\"\n")
	code, res := runJSON(t, ws, "--backend", "linux", "--policy", pf, "--", "sh", "-c",
		`echo shared > ~/.cache/go-build/from-sandbox && echo private > ~/.profile-x; dd if=/dev/zero of=/tmp/f bs=1M count=4 2>&1; true`)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, res.Stdout, res.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(shared, "from-sandbox")); err != nil || string(b) != "shared\n" {
		t.Fatalf("the shared cache did not get the write: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(home, ".profile-x")); err == nil {
		t.Fatal("a write outside the shared cache reached the real home")
	}
	if !strings.Contains(res.Stdout, "No space left") {
		t.Fatalf("tmp_size did not bound /tmp: %s", res.Stdout)
	}
	for _, bad := range []string{"~/.cargo/bin", "~/.local/bin", "~/.bashrc", "~/bin/x", "/etc", "~/.cache"} {
		write("[home]\nshare = [\"" + bad + "\"]\n")
		code, out, errOut := cli(t, ws, "", "run", "--backend", "linux", "--policy", pf, "--", "true")
		if code == 0 || !strings.Contains(errOut, "home share") {
			t.Errorf("share %s: exit %d %s %s", bad, code, out, errOut)
		}
	}
}

// Under MCP the model is told its workspace is /workspace, and that is
// true: run_command starts there and reads through it. A sibling of the host root printed by the
// command is not rewritten into a made-up /workspace-… path.
func TestMCPWorkspaceIsReal(t *testing.T) {
	needBackend(t, "linux")
	root := workspace(t)
	goModule(t, root)
	ctx, cs, stop := startMCP(t, "--root", root, "--backend", "linux")
	defer stop()
	r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_command", Arguments: map[string]any{
		"command": "pwd; cat /workspace/go.mod; echo " + root + "-backup"}})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	out := text.String()
	if r.IsError || !strings.Contains(out, "/workspace\n") || !strings.Contains(out, "module tiny") {
		t.Fatalf("run_command: error %v:\n%s", r.IsError, out)
	}
	if strings.Contains(out, "/workspace-backup") {
		t.Fatalf("a sibling of the root was rewritten:\n%s", out)
	}
}
