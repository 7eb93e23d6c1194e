package homestate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ringfence/ringfence/internal/privdir"
)

// Layer is one workspace's home layer.
type Layer struct {
	Dir   string // <state>/home/<hash>
	Upper string
	Work  string
	Cache string
}

// StateRoot is ringfence's state directory for this environment:
// $XDG_STATE_HOME/ringfence, else <home>/.local/state/ringfence. env looks
// a variable up (os.Getenv), home is the user's home.
func StateRoot(env func(string) string, home string) (string, error) {
	if x := env("XDG_STATE_HOME"); x != "" {
		if !filepath.IsAbs(x) {
			return "", fmt.Errorf("XDG_STATE_HOME %q is not absolute", x)
		}
		return filepath.Join(x, "ringfence"), nil
	}
	if home == "" || !filepath.IsAbs(home) {
		return "", errors.New("no home directory to keep ringfence's state in")
	}
	return filepath.Join(home, ".local", "state", "ringfence"), nil
}

// LayerFor names the layer of the workspace at root (absolute, clean)
// under state. Nothing is created.
func LayerFor(state, root string) Layer {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	dir := filepath.Join(state, "home", hex.EncodeToString(sum[:12]))
	return Layer{Dir: dir, Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work"),
		Cache: filepath.Join(dir, "cache")}
}

// Prepare makes the layer's directories (0700), checking that every one
// from state down is a real directory owned by this user and writable by
// no one else.
func Prepare(state, root string) (Layer, error) {
	l := LayerFor(state, root)
	for _, d := range []string{state, filepath.Join(state, "home"), l.Dir, l.Upper, l.Work, l.Cache} {
		if err := ownDir(d); err != nil {
			return Layer{}, err
		}
	}
	return l, nil
}

// ownDir makes d (parents as needed, 0700) and checks it.
func ownDir(d string) error {
	if err := os.MkdirAll(d, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state directory %s is not a directory", d)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("state directory %s is writable by others (mode %v)", d, fi.Mode().Perm())
	}
	return checkOwner(d, fi)
}

// Clear removes the layer of the workspace at root, or every layer when
// root is "". A missing layer is no error. The overlay's work directory
// holds entries of mode 000, so each directory is made 0700 before it is
// emptied. The walk goes by descriptors, never by path, and never follows
// a link: a command confined in a running session writes the upper
// directory and could swap a directory for a link to make a path-based
// chmod or removal act on a host file.
func Clear(state, root string) error {
	dir := filepath.Join(state, "home")
	if root != "" {
		dir = LayerFor(state, root).Dir
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return removeAll(dir)
}

// sharedRefused are home directories whose content is executed or sourced:
// sharing one would let a confined command plant a program the host runs.
var sharedRefused = []string{
	".cargo/bin", ".local/bin", "bin", ".bin", "go/bin", ".npm-global/bin", ".yarn/bin",
	".deno/bin", ".bun/bin", ".pyenv/shims", ".rbenv/shims", ".nvm", ".sdkman",
	".config/autostart", ".config/systemd", ".local/share/applications", ".ssh", ".gnupg",
	".config/git", ".git-templates", ".config/fish", ".oh-my-zsh", ".vim", ".config/nvim",
}

// CheckShare validates a path a policy shares with the host (absolute, or
// "~/…"): it must lie strictly inside home, and neither be nor contain nor
// lie in a directory of executed or sourced content, nor be a dotfile
// directly in home (.bashrc, .profile, .gitconfig …). It returns the
// absolute, clean path.
func CheckShare(home, p string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		p = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("home share %q: want an absolute path or ~/…", p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(home, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("home share %q: not inside the home directory %s", p, home)
	}
	if !strings.Contains(rel, "/") && !isCacheName(rel) {
		return "", fmt.Errorf("home share %q: a top-level entry of home (start-up files, configs) is never shared; share a cache directory inside it", p)
	}
	for _, r := range sharedRefused {
		if rel == r || strings.HasPrefix(rel, r+"/") || strings.HasPrefix(r, rel+"/") {
			return "", fmt.Errorf("home share %q: ~/%s holds programs or start-up files and is never shared with the host", p, r)
		}
	}
	return p, nil
}

// isCacheName allows the few top-level directories that are pure caches.
func isCacheName(name string) bool {
	switch name {
	case ".npm", ".yarn-cache", ".pnpm-store", ".gradle-cache", ".m2-cache":
		return true
	}
	return false
}

// NewRunWork makes a fresh overlay work directory for one run inside the
// layer's work directory (same filesystem as its upper directory) and
// returns it with the function that removes it. Runs of one workspace at
// the same time share the upper directory but never a work directory:
// overlayfs empties and remakes <work>/work at every mount, and a second
// mount racing the first fails to and falls back to read-only, so a
// concurrent run saw its home refuse every write (EROFS).
//
// The directory is locked for this process's life (internal/privdir): the
// ones a ringfence that died (SIGKILL) left are swept here first.
//
// The layer is mounted volatile (initproc.newOverlay): its writes are not
// synced, so after a host crash upper may hold a torn copy of a home file
// that would hide the real one in every later run. Each run directory
// records the boot it was made in (BootFile); one left from another boot
// — the host went down during that run — makes the layer start afresh:
// upper is set aside and removed before this run mounts it.
func NewRunWork(work, upper string) (string, func(), error) {
	boot := bootID()
	crashed := false
	privdir.Sweep(work, "run-", func(p string) error {
		// Only a published run directory was ever given to an overlay
		// (privdir's staging ones, left by a ringfence killed inside
		// Make, never were).
		if strings.HasPrefix(filepath.Base(p), "run-") {
			if b, err := os.ReadFile(filepath.Join(p, BootFile)); err != nil || boot == "" || string(b) != boot {
				crashed = true
			}
		}
		return removeAll(p)
	})
	if crashed {
		if err := resetUpper(upper); err != nil {
			return "", nil, fmt.Errorf("state directory: a run of an earlier boot left the home layer unsynced, and it could not be reset: %w", err)
		}
	}
	d, err := privdir.Make(work, "run-")
	if err != nil {
		return "", nil, fmt.Errorf("state directory: %w", err)
	}
	remove := func() { _ = d.CloseWith(removeAll) }
	if err := os.WriteFile(filepath.Join(d.Path, BootFile), []byte(boot), 0o600); err != nil {
		remove()
		return "", nil, fmt.Errorf("state directory: %w", err)
	}
	return d.Path, remove, nil
}

// BootFile, in a run's work directory, holds the boot id it was made in.
const BootFile = "boot"

// bootID is this boot's id, or "" where the kernel does not say (then
// every left-over run directory counts as another boot's).
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// resetUpper replaces the upper directory by an empty one. The old one is
// renamed aside first, so a run still holding it mounted (one started in
// the same moment) keeps a directory, and then removed by descriptors.
func resetUpper(upper string) error {
	aside, err := os.MkdirTemp(filepath.Dir(upper), ".upper-reset-")
	if err != nil {
		return err
	}
	if err := os.Rename(upper, filepath.Join(aside, "upper")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		_ = os.Remove(aside)
		return err
	}
	if err := ownDir(upper); err != nil {
		return err
	}
	return removeAll(aside)
}
