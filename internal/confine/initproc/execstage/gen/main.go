// Command gen builds the exec stage (package execstage) from csrc/stage.c and
// writes the blob and its record. Run by `go generate` in package execstage's
// directory after changing the source; TestBlobIsFromSource fails until
// it is.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ringfence/ringfence/internal/confine/initproc/execstage/stagebuild"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "stage/gen:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.Getwd() // go generate runs in package execstage's directory
	if err != nil {
		return err
	}
	src, err := os.ReadFile(filepath.Join(dir, stagebuild.Source))
	if err != nil {
		return err
	}
	gcc, err := stagebuild.GCC()
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+stagebuild.Blob+".tmp")
	defer os.Remove(tmp)
	if err := stagebuild.Build(dir, tmp); err != nil {
		return err
	}
	blob, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, stagebuild.Blob)); err != nil {
		return err
	}
	rec := stagebuild.Record{GCC: gcc, Source: stagebuild.Digest(src), Binary: stagebuild.Digest(blob), Size: len(blob)}
	if err := os.WriteFile(filepath.Join(dir, stagebuild.Sum), rec.Format(), 0o644); err != nil {
		return err
	}
	fmt.Printf("stage: %s %d bytes, %s, source %s\n", stagebuild.Blob, len(blob), gcc, rec.Source[:16])
	return nil
}
