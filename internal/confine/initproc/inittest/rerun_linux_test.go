package inittest

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initimage/imagesrc"
)

// A rerun is given the caller's choice of init: the value the caller was
// given, else the carried init when the caller (inside the module) shows
// it is built from the sources, else nothing (the rerun runs itself).
func TestInitChoice(t *testing.T) {
	t.Setenv(initEnv, "self")
	if got := initChoice(); !slices.Equal(got, []string{initEnv + "=self"}) {
		t.Errorf("given self: %q", got)
	}
	os.Unsetenv(initEnv) // restored by t.Setenv's cleanup
	root, err := imagesrc.ModuleRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	record, err := os.ReadFile(filepath.Join(root, imagesrc.Dir, imagesrc.Sum))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{initEnv + "=embedded"}
	if runtime.GOARCH != "amd64" || !imagesrc.SourcesAsRecorded(root, record) {
		want = nil // no blob, or init sources changed and not regenerated: the rerun runs itself
	}
	if got := initChoice(); !slices.Equal(got, want) {
		t.Errorf("inside the module: %q, want %q", got, want)
	}
	t.Chdir(t.TempDir())
	if got := initChoice(); got != nil {
		t.Errorf("outside the module: %q, want nothing", got)
	}
}
