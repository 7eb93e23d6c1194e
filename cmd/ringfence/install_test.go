package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// goEnv is the environment of a `go` command a test runs as a person
// would on a fresh machine: VCS stamping as Go's default (this host's go
// env file turns it off), no network, no cgo unless the command says so.
func goEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") && !strings.HasPrefix(kv, "CGO_ENABLED=") && !strings.HasPrefix(kv, "GOBIN=") {
			env = append(env, kv)
		}
	}
	env = append(env, goCaches()...)
	return append(env, append([]string{"GOFLAGS=-buildvcs=auto", "GOPROXY=off", "GOTOOLCHAIN=local"}, extra...)...)
}

var goCachesOnce = sync.OnceValue(func() []string {
	c := exec.Command("go", "env", "GOMODCACHE", "GOCACHE", "GOPATH")
	c.Env = append(os.Environ(), "HOME="+realHome)
	out, err := c.Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 3 {
		return nil
	}
	return []string{"GOMODCACHE=" + lines[0], "GOCACHE=" + lines[1], "GOPATH=" + lines[2]}
})

// goCaches are the module and build caches of whoever runs the tests
// (TestMain gave the tests a fresh HOME; the caches stay where they are).
func goCaches() []string { return goCachesOnce() }

// staticELF reports why the ELF file at path is not a static executable:
// it asks for a program interpreter (the dynamic loader) or names shared
// libraries. "" means static.
func staticELF(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "it has a PT_INTERP (a dynamic loader)", nil
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return "", err
	}
	if len(libs) > 0 {
		return "it needs " + strings.Join(libs, ", "), nil
	}
	return "", nil
}

// readmeInstall returns the README's install block whose marker says what.
func readmeInstall(t *testing.T, what string) []string {
	t.Helper()
	blocks, err := fencedBlocks("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if strings.HasPrefix(b.marker("install"), what) {
			return strings.Split(strings.TrimSpace(b.body), "\n")
		}
	}
	t.Fatalf("README has no install block %q", what)
	return nil
}

// The README's install commands, run exactly in a fresh clone of this
// commit, give one static binary whose --version names the commit.
func TestInstallFromCheckout(t *testing.T) {
	lines := readmeInstall(t, "checkout")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "git clone ") || !strings.HasSuffix(lines[0], "&& cd ringfence") {
		t.Fatalf("the checkout block is not `git clone … && cd ringfence` then the install: %q", lines)
	}
	proxy := readmeInstall(t, "the module proxy")
	if len(proxy) != 1 || !strings.HasPrefix(proxy[0], "CGO_ENABLED=0 go install ") || !strings.HasSuffix(proxy[0], "/cmd/ringfence@latest") {
		t.Fatalf("the module-proxy command does not build statically: %q", proxy)
	}
	dir := t.TempDir()
	clone, head := freshClone(t, dir)
	bin := filepath.Join(dir, "bin")
	c := exec.Command("sh", "-c", lines[1])
	c.Dir, c.Env = clone, goEnv("GOBIN="+bin)
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", lines[1], err, out)
	}
	exe := filepath.Join(bin, "ringfence")
	why, err := staticELF(exe)
	if err != nil || why != "" {
		t.Fatalf("the installed binary is not static: %s %v", why, err)
	}
	out, err := exec.Command(exe, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if rev := head[:12]; !strings.Contains(string(out), rev) || strings.Contains(string(out), "(devel)") {
		t.Errorf("--version %q does not name commit %s", out, rev)
	}
	if !regexp.MustCompile(`^ringfence \S+ linux/\w+ go1\.`).Match(out) {
		t.Errorf("--version: %q", out)
	}
}

// The control: the same check finds a cgo build dynamic, so a passing
// check means something (here with gcc, as a default `go install` gets).
func TestStaticCheckSeesDynamic(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Fatalf("gcc is needed for the control (a cgo build): %v", err)
	}
	dir := t.TempDir()
	src := "package main\n\nimport (\n\t\"fmt\"\n\t\"net\"\n)\n\nfunc main() { fmt.Println(net.ParseIP(\"::1\")) }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cgo := range []string{"1", "0"} {
		exe := filepath.Join(dir, "p"+cgo)
		c := exec.Command("go", "build", "-o", exe, "main.go")
		c.Dir, c.Env = dir, goEnv("CGO_ENABLED="+cgo, "GO111MODULE=off")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("CGO_ENABLED=%s: %v: %s", cgo, err, out)
		}
		why, err := staticELF(exe)
		if err != nil {
			t.Fatal(err)
		}
		if (why == "") != (cgo == "0") {
			t.Errorf("CGO_ENABLED=%s: static check says %q", cgo, why)
		}
	}
}

// freshClone clones this checkout's HEAD into dir/ringfence, as a person
// would get it, and returns the clone and its commit.
func freshClone(t *testing.T, dir string) (string, string) {
	t.Helper()
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("not in a git checkout: %v", err)
	}
	clone := filepath.Join(dir, "ringfence")
	if out, err := exec.Command("git", "clone", "-q", "--shared", strings.TrimSpace(string(top)), clone).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v: %s", err, out)
	}
	head, err := exec.Command("git", "-C", clone, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return clone, strings.TrimSpace(string(head))
}

// The README's first command works in a fresh clone, as written.
func TestTwoCommandsFreshClone(t *testing.T) {
	needBackend(t, "auto")
	blocks, err := fencedBlocks("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, b := range blocks {
		if b.marker("checked-by") == "TestTwoCommandsFreshClone" {
			line = strings.TrimSpace(b.body)
		}
	}
	if !strings.HasPrefix(line, "go run ./cmd/ringfence run -- ") || strings.Contains(line, "\n") {
		t.Fatalf("the README's first command is not one go run line: %q", line)
	}
	clone, _ := freshClone(t, t.TempDir())
	c := exec.Command("sh", "-c", line)
	c.Dir, c.Env = clone, goEnv()
	out, err := c.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("%s: %v: %s", line, err, out)
	}
	for _, want := range []string{"hello\n", "touch: cannot touch '/etc/x': Read-only file system",
		"[ringfence] The sandbox refused part of what the command did, and it exited with code 1. Refused: read-only-filesystem: /etc/x."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s: no %q in\n%s", line, want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(clone, "out.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("out.txt: %q %v", b, err)
	}
}
