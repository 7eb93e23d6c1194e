package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/homestate"
	"github.com/ringfence/ringfence/policy"
)

// HomeConfig is how commands see the user's home.
type HomeConfig struct {
	// On gives commands HOME and a private layer over it: the real files
	// to read, writes kept per workspace under StateDir. Off (the library's
	// default: a library should not write the user's state directory
	// unasked), home is as the policy says, read-only under the usual
	// deny-list, and the toolchain cache variables (GOCACHE, XDG_CACHE_HOME,
	// npm_config_cache, …) point into the sandbox's private temp dir, so a
	// cold build still works (its cache is gone with Close). The CLI and
	// the MCP server turn it on.
	On bool
	// Dir is the home directory; "" is $HOME (else the user database's).
	Dir string
	// StateDir is ringfence's state directory; "" is
	// $XDG_STATE_HOME/ringfence, else ~/.local/state/ringfence.
	StateDir string
	// Share are cache directories ("~/.cache/go-build") writes to which
	// reach the real home: write entries of the deployment. A directory of
	// programs or start-up files is refused (homestate.CheckShare).
	Share []string
}

// setupHome prepares the private home layer of the workspace at root and
// turns the shared caches into deployment write entries. A layer that
// cannot be prepared is not an error: home stays as the policy says
// (read-only), which is the safe side, and the reason is returned.
func setupHome(cfg HomeConfig, root string, d *policy.Defaults) (*confine.Home, string, error) {
	if !cfg.On {
		return nil, "", nil
	}
	home := cfg.Dir
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil || home == "" {
			return nil, "no home directory known: home stays read-only", nil
		}
	}
	home = policy.Clean(home)
	real, err := filepath.EvalSymlinks(home)
	if err != nil {
		// Never create a home that is not there: the state directory
		// would make one on the host.
		return nil, "home directory " + home + " is not usable (" + err.Error() + "): home stays read-only", nil
	}
	home = real // the kernel (mounts, Landlock) judges physical paths
	if fi, err := os.Stat(home); err != nil || !fi.IsDir() {
		return nil, "home directory " + home + " is not a directory: home stays read-only", nil
	}
	for _, s := range cfg.Share {
		p, err := homestate.CheckShare(home, s)
		if err != nil {
			return nil, "", &policy.InvalidError{Field: "home share", Value: s, Reason: err.Error()}
		}
		d.Entries = append(d.Entries, policy.Entry{Path: p, Access: policy.Write})
	}
	state := cfg.StateDir
	if state == "" {
		var err error
		if state, err = homestate.StateRoot(os.Getenv, home); err != nil {
			return nil, err.Error() + ": home stays read-only", nil
		}
	}
	layer, err := homestate.Prepare(state, root)
	if err != nil {
		return nil, err.Error() + ": home stays read-only", nil
	}
	return &confine.Home{Dir: home, Upper: layer.Upper, Work: layer.Work, Cache: layer.Cache,
		Hide: []string{state}}, "", nil
}

// ClearHome drops the private home layer of the workspace at root (its
// toolchain caches and everything commands wrote under home), or every
// workspace's when root is "". It returns the directory removed.
func ClearHome(cfg HomeConfig, root string) (string, error) {
	state := cfg.StateDir
	if state == "" {
		home := cfg.Dir
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return "", fmt.Errorf("ringfence: no home directory: %w", err)
			}
		}
		if real, err := filepath.EvalSymlinks(home); err == nil {
			home = real
		}
		var err error
		if state, err = homestate.StateRoot(os.Getenv, home); err != nil {
			return "", fmt.Errorf("ringfence: %w", err)
		}
	}
	dir := filepath.Join(state, "home")
	if root != "" {
		canon, err := canonicalRoot(root)
		if err != nil {
			return "", err
		}
		root = canon
		dir = homestate.LayerFor(state, root).Dir
	}
	return dir, homestate.Clear(state, root)
}
