// Package stagebuild builds the exec stage (package execstage) from its C
// source and says what a blob was built from: the generator and the
// freshness test share it, so both build the same way.
package stagebuild

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Source, Blob and Sum are the files, relative to package execstage's
// directory.
const (
	Source = "csrc/stage.c"
	Blob   = "stage_linux_amd64.bin"
	Sum    = "stage_linux_amd64.sum"
)

// Flags build a static, freestanding executable: no libc, no start
// files, no PIE, no stack protector or CET notes (nothing to set them
// up), no build id or ident (reproducible), one read-and-execute segment
// and a non-executable stack.
var Flags = []string{
	"-static", "-nostdlib", "-nostartfiles", "-ffreestanding", "-fno-builtin",
	"-Os", "-fno-pie", "-no-pie", "-fno-stack-protector",
	"-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-fcf-protection=none", "-fno-ident",
	"-Wall", "-Wextra", "-Werror",
	"-Wl,--build-id=none", "-Wl,-z,noexecstack", "-Wl,-z,norelro", "-Wl,-z,noseparate-code", "-s",
}

// Record is the sum file.
type Record struct {
	GCC    string `json:"gcc"`    // first line of `gcc --version`
	Source string `json:"source"` // sha256 of Source
	Binary string `json:"binary"` // sha256 of Blob
	Size   int    `json:"size"`
}

// ParseRecord reads a sum file.
func ParseRecord(data []byte) (Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Record{}, fmt.Errorf("stagebuild: bad %s: %w", Sum, err)
	}
	if r.GCC == "" || len(r.Source) != 64 || len(r.Binary) != 64 || r.Size <= 0 {
		return Record{}, fmt.Errorf("stagebuild: incomplete %s: %+v", Sum, r)
	}
	return r, nil
}

// Format writes a sum file.
func (r Record) Format() []byte {
	data, _ := json.MarshalIndent(r, "", "\t")
	return append(data, '\n')
}

// Digest is the hex sha256 of data.
func Digest(data []byte) string {
	d := sha256.Sum256(data)
	return hex.EncodeToString(d[:])
}

// GCC is the first line of `gcc --version`.
func GCC() (string, error) {
	out, err := exec.Command("gcc", "--version").Output()
	if err != nil {
		return "", fmt.Errorf("stagebuild: gcc --version: %w", err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return strings.TrimSpace(line), nil
}

// Build compiles dir's Source into out.
func Build(dir, out string) error {
	args := append(append([]string{}, Flags...), "-o", out, filepath.Join(dir, Source))
	cmd := exec.Command("gcc", args...)
	// Only what finds gcc and its temporary files: GCC_EXEC_PREFIX,
	// C_INCLUDE_PATH and the like would change what it builds.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir(), "LC_ALL=C", "SOURCE_DATE_EPOCH=0"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("stagebuild: gcc: %w: %s", err, stderr.String())
	}
	return nil
}
