package ringfence

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestArchitectureMapsEveryPackage keeps docs/architecture.md's package
// map true: every package of the module has a row, and every row names a
// package that exists. A new package without its place in the map, or a
// map that still shows a package that moved, fails here.
func TestArchitectureMapsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| [a-z]+ \\| `([^`]+)` \\|")
	mapped := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		mapped[m[1]] = true
	}
	have := map[string]bool{}
	err = filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// bench/out is the benchmarks' own output (ignored by git).
			if n := d.Name(); p != "." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || p == "bench/out") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			have[filepath.ToSlash(filepath.Dir(p))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(have) < 40 || len(mapped) < 40 {
		t.Fatalf("found %d packages and %d rows: is the test running in the module root?", len(have), len(mapped))
	}
	var missing, stale []string
	for p := range have {
		if !mapped[p] {
			missing = append(missing, p)
		}
	}
	for p := range mapped {
		if !have[p] {
			stale = append(stale, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("packages without a row in docs/architecture.md: %v", missing)
	}
	if len(stale) > 0 {
		t.Errorf("rows in docs/architecture.md naming no package: %v", stale)
	}
}
