package ringfence

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ringfence/ringfence"

// imports lists the import paths of one Go file.
func imports(t *testing.T, path string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		out = append(out, p)
	}
	return out
}

// TestNoInternalImportsTheRoot: the arrows go one way (DESIGN.md): the root
// is the facade on top, and no internal package — its tests included —
// imports it. Consumers declare the narrow interfaces they need, over the
// value types of internal/sandbox.
func TestNoInternalImportsTheRoot(t *testing.T) {
	var seen int
	err := filepath.WalkDir("internal", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		seen++
		path = filepath.ToSlash(path)
		if slices.Contains(imports(t, path), module) {
			t.Errorf("%s imports the root package %s: declare the interface it needs, or use internal/sandbox", path, module)
		}
		return nil
	})
	if err != nil || seen < 100 {
		t.Fatalf("walked %d files under internal/ (%v): is the test running in the module root?", seen, err)
	}
}

// TestRootIsOnlyTheFacade: the root's own files forward to the pipeline in
// internal/sandbox (and MaybeInternal dispatches the re-executed entry
// points); backend selection, classification and the rest live below. A
// root file importing anything else is pipeline code in the wrong room.
func TestRootIsOnlyTheFacade(t *testing.T) {
	allowed := []string{
		"os",
		module + "/internal/sandbox",
		// MaybeInternal's registry of re-executed entry points.
		module + "/internal/entry",
		module + "/internal/confine/bwrap/shim", module + "/internal/confine/initproc", module + "/internal/reaper",
	}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in the root (%v)", err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
		for _, p := range imports(t, f) {
			if !slices.Contains(allowed, p) {
				t.Errorf("%s imports %s: the root is the public facade only; the pipeline lives in internal/sandbox", f, p)
			}
		}
	}
}
