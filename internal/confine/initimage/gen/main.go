// Command gen builds the embedded sandbox init (initmain) reproducibly
// and writes it and its record (source digest, Go version, binary digest)
// into the initimage package. Run by `go generate ./internal/confine/initimage`
// after any change to the init's sources; the freshness test fails until
// it is.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ringfence/ringfence/internal/confine/initimage/imagesrc"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "initimage/gen:", err)
		os.Exit(1)
	}
}

func run() error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := imagesrc.ModuleRoot(wd)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, "internal", "confine", "initimage")
	version, err := imagesrc.GoVersion(root)
	if err != nil {
		return err
	}
	digest, err := imagesrc.Digest(root)
	if err != nil {
		return err
	}
	pkgs, err := imagesrc.Packages(root)
	if err != nil {
		return err
	}
	if heavy := imagesrc.Heavy(pkgs); len(heavy) > 0 {
		return fmt.Errorf("the init links denied packages (imagesrc.Denied), not generating:\n  %s", strings.Join(heavy, "\n  "))
	}
	tmp := filepath.Join(dir, "."+imagesrc.Blob+".tmp")
	defer os.Remove(tmp)
	if err := imagesrc.Build(root, tmp); err != nil {
		return err
	}
	blob, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, imagesrc.Blob)); err != nil {
		return err
	}
	rec := imagesrc.Record{GoVersion: version, Source: digest, Binary: imagesrc.BinaryDigest(blob), Size: len(blob)}
	if err := os.WriteFile(filepath.Join(dir, imagesrc.Sum), rec.Format(), 0o644); err != nil {
		return err
	}
	fmt.Printf("initimage: %s %d bytes, %d packages, %s, source %s\n", imagesrc.Blob, len(blob), len(pkgs), version, digest[:16])
	if len(blob) > imagesrc.MaxSize {
		fmt.Fprintf(os.Stderr, "initimage: %d KiB is over imagesrc.MaxSize (%d KiB): TestEmbeddedInitIsSmall will fail\n", len(blob)>>10, imagesrc.MaxSize>>10)
	}
	return nil
}
