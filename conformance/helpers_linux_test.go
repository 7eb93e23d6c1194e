package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/conformance"
	"github.com/ringfence/ringfence/tools"
	"golang.org/x/sys/unix"
)

// helperEnv names the role a re-executed test binary plays.
const helperEnv = "RF_CONFORMANCE_HELPER"

func runHelper(role string) int {
	var err error
	switch role {
	case "supervise":
		err = helperSupervise(os.Getenv("RF_ROOT"), os.Getenv("RF_BACKEND"))
	case "fulldisk":
		err = helperFullDisk()
	default:
		err = fmt.Errorf("unknown helper role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}

// helperSupervise is a supervisor that the test SIGKILLs mid-command: it
// runs a command that starts a background sleeper and a setsid'd one,
// writes up.txt, and sleeps.
func helperSupervise(root, backend string) error {
	l, err := ringfence.New(conformance.LocalConfig(root, backend))
	if err != nil {
		return err
	}
	_, err = l.Exec(context.Background(), []string{"sh", "-c",
		`sleep 60 & (setsid sleep 61 &); echo up > up.txt; sleep 62`}, ringfence.ExecOptions{Dir: "work"})
	return err
}

// fullDiskReport is what helperFullDisk prints.
type fullDiskReport struct {
	FillErr  string   `json:"fillErr"`  // how filling the disk ended
	WriteErr string   `json:"writeErr"` // Local.WriteFile on the full disk
	ToolKind string   `json:"toolKind"` // write_file's outcome kind
	Keep     string   `json:"keep"`     // keep.txt afterwards
	Entries  []string `json:"entries"`  // the workspace afterwards
}

// helperFullDisk runs in a private mount namespace (the test starts it with
// CLONE_NEWNS): it mounts a 64 KiB tmpfs, makes the workspace there, fills
// it, and tries to overwrite a file.
func helperFullDisk() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	dir, err := os.MkdirTemp("", "conformance-fulldisk-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		return fmt.Errorf("mount tmpfs: %w", err)
	}
	defer unix.Unmount(dir, unix.MNT_DETACH)
	rep, err := fillAndWrite(dir)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}

func fillAndWrite(root string) (*fullDiskReport, error) {
	if err := os.WriteFile(filepath.Join(root, "keep.txt"), []byte("original"), 0o644); err != nil {
		return nil, err
	}
	l, err := ringfence.New(conformance.LocalConfig(root, "auto"))
	if err != nil {
		return nil, err
	}
	defer l.Close()
	rep := &fullDiskReport{FillErr: fill(filepath.Join(root, "filler"))}
	big := make([]byte, 32<<10)
	if err := l.WriteFile(context.Background(), "keep.txt", big); err != nil {
		rep.WriteErr = err.Error()
	}
	args, _ := json.Marshal(map[string]string{"path": "keep.txt", "content": string(big)})
	rep.ToolKind = string(tools.New(l, tools.Options{}).Call(context.Background(), "write_file", args).Outcome.Kind)
	keep, _ := os.ReadFile(filepath.Join(root, "keep.txt"))
	rep.Keep = string(keep)
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		rep.Entries = append(rep.Entries, e.Name())
	}
	return rep, nil
}

// fill writes until the file system is full and says how it ended.
func fill(path string) string {
	f, err := os.Create(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for range 1 << 12 {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return "ENOSPC"
			}
			return err.Error()
		}
	}
	return "never full"
}
