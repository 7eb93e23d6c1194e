package policyfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// TrustRecord is one policy file the user trusted: its absolute path and
// the SHA-256 of the exact bytes they trusted. A file whose bytes changed
// is no longer trusted.
type TrustRecord struct {
	Path      string    `json:"path"`
	SHA256    string    `json:"sha256"`
	TrustedAt time.Time `json:"trustedAt"`
}

// Trust is the user's trust store (~/.config/ringfence/trusted.json).
type Trust struct {
	Files []TrustRecord `json:"files"`
}

// TrustStorePath is <userConfigDir>/ringfence/trusted.json.
func TrustStorePath(userConfigDir string) string {
	return filepath.Join(userConfigDir, "ringfence", "trusted.json")
}

// maxTrustSize bounds the store: a record is ~150 bytes.
const maxTrustSize = 4 << 20

// LoadTrust reads the trust store at path; a missing store is empty. A
// store that others could have written — a symbolic link, not a regular
// file, not owned by this user, writable by group or others, or in a
// directory that is — is refused: trusting from it would let someone else
// widen this user's policy.
func LoadTrust(path string) (*Trust, error) {
	if err := checkTrustDir(filepath.Dir(path)); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &Trust{}, nil
		}
		return nil, err
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return &Trust{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w (a symbolic link is refused)", path, err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w", path, err)
	}
	if err := checkOwned("trust store", path, fi, true); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxTrustSize+1))
	if err != nil {
		return nil, fmt.Errorf("trust store %s: %w", path, err)
	}
	if len(data) > maxTrustSize {
		return nil, fmt.Errorf("trust store %s: larger than 4 MiB", path)
	}
	t := &Trust{}
	if len(strings.TrimSpace(string(data))) == 0 {
		return t, nil
	}
	if err := json.Unmarshal(data, t); err != nil {
		return nil, fmt.Errorf("trust store %s: %w", path, err)
	}
	return t, nil
}

func checkTrustDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("trust store directory %s: not a directory (a symbolic link is refused)", dir)
	}
	return checkOwned("trust store directory", dir, fi, false)
}

// checkOwned refuses what this user does not own or others may write.
func checkOwned(label, path string, fi fs.FileInfo, regular bool) error {
	if regular && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %s: not a regular file", label, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s %s: owned by uid %d, not by you (uid %d)", label, path, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s %s: writable by others (mode %v); fix with chmod go-w", label, path, fi.Mode().Perm())
	}
	return nil
}

// CheckPrivate refuses a file trusted by where it lives (the user's own
// policy file) when someone else could have written it: not owned by this
// user, or writable by group or others. Links are followed (dotfile
// managers link config files); the file reached is judged.
func CheckPrivate(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return checkOwned("policy file", path, fi, true)
}

// Trusted reports whether the file at path (as CanonicalPath gives it)
// with this digest is trusted.
func (t *Trust) Trusted(path, digest string) bool {
	return slices.ContainsFunc(t.Files, func(r TrustRecord) bool { return r.Path == path && r.SHA256 == digest })
}

// Lookup returns the record for path, if any.
func (t *Trust) Lookup(path string) (TrustRecord, bool) {
	i := slices.IndexFunc(t.Files, func(r TrustRecord) bool { return r.Path == path })
	if i < 0 {
		return TrustRecord{}, false
	}
	return t.Files[i], true
}

// Add trusts path at digest, replacing an earlier record for path.
func (t *Trust) Add(path, digest string, now time.Time) {
	t.Remove(path)
	t.Files = append(t.Files, TrustRecord{Path: path, SHA256: digest, TrustedAt: now.UTC()})
	slices.SortFunc(t.Files, func(a, b TrustRecord) int { return strings.Compare(a.Path, b.Path) })
}

// Remove forgets path and reports whether it was trusted.
func (t *Trust) Remove(path string) bool {
	n := len(t.Files)
	t.Files = slices.DeleteFunc(t.Files, func(r TrustRecord) bool { return r.Path == path })
	return len(t.Files) != n
}

// Save writes the store atomically, readable and writable by this user
// only: a temp file in the same directory (0600), synced, renamed over
// the store. The directory is created 0700 if missing.
func (t *Trust) Save(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	if err := checkTrustDir(dir); err != nil {
		return err
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".trusted-*.json")
	if err != nil {
		return fmt.Errorf("trust store: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.Write(append(data, '\n'))
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			return fmt.Errorf("trust store: %w", err)
		}
	} else {
		tmp.Close()
		return fmt.Errorf("trust store: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // the rename reaches the disk; a failure here loses no data already renamed
		d.Close()
	}
	return nil
}

// CanonicalPath is how a policy file is named in the trust store: absolute,
// its directory's links resolved, its own name kept (a link named
// .ringfence.toml is judged by the bytes read through it, under its own
// name, never by its target's trust).
func CanonicalPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}
