// Package imagesrc says what the embedded init is built from and how:
// the one list of build settings, and a digest of every source file that
// goes into it. The generator records the digest beside the binary; the
// freshness test recomputes it, so an init source change without a
// regenerated binary fails the tests instead of shipping old init code.
//
// The digest covers the Go files (and assembly, embedded files) of every
// non-standard-library package the init links, read from the module
// cache or the tree, plus go.mod; the standard library is covered by the
// recorded Go version. It does not depend on the toolchain that computes
// it beyond `go list` naming the packages.
package imagesrc

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Main is the init's main package.
const Main = "github.com/ringfence/ringfence/internal/confine/initimage/initmain"

// Blob and Sum are the generated files, in the initimage package's
// directory: the binary (for linux/amd64) and its record.
const (
	Blob = "init_linux_amd64.bin"
	Sum  = "init_linux_amd64.sum"
)

// Env is the build's whole environment besides PATH, HOME and the Go
// caches: fixed so the same source and Go version give the same bytes.
var Env = []string{"CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOAMD64=v1", "GOFLAGS=-mod=readonly", "GOEXPERIMENT=", "GOTOOLCHAIN=local"}

// Flags are the build's flags: no paths, no build id, no symbols, no VCS
// stamp — reproducible, and small.
var Flags = []string{"-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid="}

// Record is the sum file: what the blob was built from.
type Record struct {
	GoVersion string `json:"go"`     // `go env GOVERSION` of the build
	Source    string `json:"source"` // Digest of the sources
	Binary    string `json:"binary"` // sha256 of the blob
	Size      int    `json:"size"`
}

// ParseRecord reads a sum file.
func ParseRecord(data []byte) (Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Record{}, fmt.Errorf("imagesrc: bad %s: %w", Sum, err)
	}
	if r.GoVersion == "" || len(r.Source) != 64 || len(r.Binary) != 64 || r.Size <= 0 {
		return Record{}, fmt.Errorf("imagesrc: incomplete %s: %+v", Sum, r)
	}
	return r, nil
}

// Format writes a sum file.
func (r Record) Format() []byte {
	data, _ := json.MarshalIndent(r, "", "\t")
	return append(data, '\n')
}

// BinaryDigest is the hex sha256 of a blob.
func BinaryDigest(blob []byte) string {
	d := sha256.Sum256(blob)
	return hex.EncodeToString(d[:])
}

// command runs the go tool in the module root with the build's env.
func command(moduleRoot string, args ...string) *exec.Cmd {
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleRoot
	cmd.Env = append(passThrough(), Env...)
	return cmd
}

// startEnv is the environment this process started with. A test that
// sets HOME (t.Setenv) before its first sandbox would otherwise have the
// freshness check's go tool fill that home with a build cache and a
// module download (TestZeroConfigColdGoBuild's home, once).
var startEnv = os.Environ()

// passThrough is what of the caller's environment, as it started, the go
// tool needs to find itself and its caches (and, offline, the module
// proxy settings).
func passThrough() []string {
	var env []string
	for _, kv := range startEnv {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PATH", "HOME", "GOCACHE", "GOMODCACHE", "GOPATH", "GOPROXY", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOSUMDB", "GOINSECURE", "TMPDIR", "XDG_CACHE_HOME":
			env = append(env, kv)
		}
	}
	return env
}

// GoVersion is the version of the go tool the build would use.
func GoVersion(moduleRoot string) (string, error) {
	out, err := command(moduleRoot, "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("imagesrc: go env GOVERSION: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Build compiles the init into out.
func Build(moduleRoot, out string) error {
	args := append([]string{"build"}, Flags...)
	args = append(args, "-o", out, Main)
	cmd := command(moduleRoot, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("imagesrc: go build %s: %w: %s", Main, err, stderr.String())
	}
	return nil
}

type listed struct {
	ImportPath string
	Dir        string
	Standard   bool
	GoFiles    []string
	SFiles     []string
	EmbedFiles []string
}

// Digest is the hex sha256 over the init's non-standard sources (each
// package's import path, then each file's name and contents, in sorted
// order), the build settings and go.mod.
func Digest(moduleRoot string) (string, error) {
	all, err := list(moduleRoot)
	if err != nil {
		return "", err
	}
	var pkgs []listed
	for _, p := range all {
		if !p.Standard {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		return "", fmt.Errorf("imagesrc: go list named no package of %s", Main)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].ImportPath < pkgs[j].ImportPath })
	h := sha256.New()
	fmt.Fprintf(h, "env %q\nflags %q\n", Env, Flags)
	if err := hashFile(h, "go.mod", filepath.Join(moduleRoot, "go.mod")); err != nil {
		return "", err
	}
	for _, p := range pkgs {
		fmt.Fprintf(h, "package %s\n", p.ImportPath)
		files := append(append(append([]string(nil), p.GoFiles...), p.SFiles...), p.EmbedFiles...)
		sort.Strings(files)
		for _, f := range files {
			if err := hashFile(h, f, filepath.Join(p.Dir, f)); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// list is `go list -deps` of the init, with the build's environment (so
// the packages of linux/amd64, whatever the caller's platform).
func list(moduleRoot string) ([]listed, error) {
	cmd := command(moduleRoot, "list", "-deps", "-json=ImportPath,Dir,Standard,GoFiles,SFiles,EmbedFiles", Main)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("imagesrc: go list: %w: %s", err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("imagesrc: go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// Packages are the import paths of every package the init links.
func Packages(moduleRoot string) ([]string, error) {
	pkgs, err := list(moduleRoot)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(pkgs))
	for i, p := range pkgs {
		paths[i] = p.ImportPath
	}
	return paths, nil
}

func hashFile(h io.Writer, name, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("imagesrc: %w", err)
	}
	fmt.Fprintf(h, "file %s %d\n", name, len(data))
	_, err = h.Write(data)
	return err
}

// ModuleRoot finds the module's root from dir upwards (the directory with
// go.mod declaring the ringfence module).
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module github.com/ringfence/ringfence\n")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("imagesrc: no ringfence go.mod above %s", dir)
		}
		d = parent
	}
}

// Dir is the initimage package's directory in the module, where Blob and
// Sum are.
const Dir = "internal/confine/initimage"

// SourcesAsRecorded says whether the init's sources in the module that
// holds dir digest to the Source of record (a sum file's text): whether a
// blob with that record is what those sources build. Any failure to tell
// (dir outside the module, no go tool, a package go list cannot load)
// says no.
func SourcesAsRecorded(dir string, record []byte) bool {
	rec, err := ParseRecord(record)
	if err != nil {
		return false
	}
	root, err := ModuleRoot(dir)
	if err != nil {
		return false
	}
	digest, err := Digest(root)
	return err == nil && digest == rec.Source
}
