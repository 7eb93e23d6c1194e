package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's Go example compiles and runs as shown: it is pasted into a
// program whose only additions are the names the snippet takes as given
// (dir, ctx, myGate) and the MaybeInternal call the README says to make.
func TestREADMEGoExample(t *testing.T) {
	needBackend(t, "auto")
	blocks, err := fencedBlocks("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var snippet string
	for _, b := range blocks {
		if b.marker("checked-by") == "TestREADMEGoExample" {
			snippet = b.body
		}
	}
	if snippet == "" {
		t.Fatal("no README Go example")
	}
	// A directory starting with "." is inside the module but never matched
	// by ./... patterns.
	dir, err := os.MkdirTemp("../..", ".readme-example-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	prog := `package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/tools"
)

func main() {
	if ringfence.MaybeInternal() {
		return
	}
	dir, ctx := os.Args[1], context.Background()
	var myGate tools.Gate
` + indent(snippet) + `	_ = err
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	if err := os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "m_test.go"), []byte("package m\n\nimport \"testing\"\n\nfunc TestM(t *testing.T) {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "example")
	c := exec.Command("go", "build", "-o", exe, "./"+filepath.Base(dir))
	c.Dir, c.Env = "../..", goEnv("CGO_ENABLED=0")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("the README's Go example does not compile: %v\n%s\n%s", err, out, prog)
	}
	run := exec.Command(exe, ws)
	run.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=")
	// The module cache is shared (read-only inside, as a user's is); the
	// build cache is not named, as a user's usually is not: the sandbox
	// points GOCACHE at its own private directory (a zero Config has no
	// home layer, and home is read-only).
	for _, kv := range goCaches() {
		if !strings.HasPrefix(kv, "GOCACHE=") {
			run.Env = append(run.Env, kv)
		}
	}
	out, err := run.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ok  \texample.com/m") {
		t.Errorf("the README's Go example: %v\n%s", err, out)
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("\t" + l + "\n")
	}
	return b.String()
}
