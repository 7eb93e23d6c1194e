//go:build linux

package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

func BenchmarkReadFile1MiB(b *testing.B) {
	f := newFixture(b)
	line := strings.Repeat("x", 63) + "\n"
	writeHost(b, filepath.Join(f.root, "mib.txt"), strings.Repeat(line, (1<<20)/len(line)))
	w := open(b, policyFor(f.root, policy.WorkspaceWrite), false)
	b.SetBytes(1 << 20)
	for b.Loop() {
		if _, err := w.ReadFile("mib.txt", ReadOptions{MaxBytes: 2 << 20}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrepLiteral searches the Go toolchain's own source tree.
func BenchmarkGrepLiteral(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go command to find GOROOT")
	}
	root := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	if _, err := os.Stat(root); err != nil {
		b.Skip("no GOROOT/src")
	}
	pol := &policy.Policy{Root: root, Baseline: policy.Read}
	w, err := New(pol, Options{MaxEntries: 1 << 20, MaxReadBytes: 1 << 40, MaxMatches: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for b.Loop() {
		if _, err := w.GrepFiles("ErrShortWrite", GrepOptions{NoIgnore: true}); err != nil {
			b.Fatal(err)
		}
	}
}
