package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/policy/policyfile"
)

// The roles a policy file plays, as `policy explain` shows them.
const (
	roleExplicit   = "explicit"    // --policy FILE: the person named it
	roleUser       = "user"        // <config>/ringfence/policy.toml: the user's own
	roleTrusted    = "trusted"     // the workspace's file, trusted at exactly these bytes
	roleNarrowOnly = "narrow-only" // the workspace's file, untrusted: it could only narrow
)

// fileUse is one policy file that shaped the policy.
type fileUse struct {
	Path   string `json:"path"`
	Role   string `json:"role"`
	SHA256 string `json:"sha256"`
}

// policySources is the policy the files resolve to, before flags.
type policySources struct {
	base     policyfile.Base
	files    []fileUse
	warnings []string
}

// builtinDefaults is the CLI's policy when no file says otherwise: the
// agent profile, as a zero ringfence.Config gets it.
func builtinDefaults(root string) policy.Defaults {
	home, _ := os.UserHomeDir()
	d := policy.AgentProfile(home, pathExists)
	d.Root = root
	return d
}

func pathExists(p string) bool { _, err := os.Lstat(p); return err == nil }

// trustRefusal is a workspace policy file refused because it widens and is
// not trusted: the widenings, and how to trust it.
type trustRefusal struct {
	*policyfile.WideningError
	note string // why it is not trusted, when there is more to say
}

func (e *trustRefusal) Error() string {
	s := e.WideningError.Error() + "\n  A workspace's policy file may only narrow yours (" + "the user policy file or the built-in defaults) until you trust it."
	if e.note != "" {
		s += "\n  " + e.note
	}
	return s + "\n  Read it, then run: ringfence policy trust " + e.File
}

func (e *trustRefusal) Unwrap() error { return e.WideningError }

// loadPolicySources decides which policy files apply, and how:
//
//   - --policy FILE (explicit) is the whole policy: the person named it on
//     the command line, where they could as well have passed --mode.
//   - Otherwise the user's own file (<config>/ringfence/policy.toml), else
//     the built-in defaults, is the base; the workspace's .ringfence.toml,
//     if any, replaces it only when trusted at exactly the bytes read now,
//     and otherwise may only narrow it (policyfile.Narrow), or is refused.
//
// Every file is read once; the bytes hashed are the bytes parsed. Any file
// setting danger-full-access adds a warning. (guardConfigDir then keeps
// the config dir out of every sandboxed command's reach.)
func loadPolicySources(root, explicit string) (*policySources, error) {
	configDir, _ := os.UserConfigDir()
	var src *policySources
	var err error
	if explicit != "" {
		src = &policySources{base: policyfile.Base{Defaults: builtinDefaults(root)}}
		err = src.loadTrusted(explicit, roleExplicit, root)
	} else if src, err = userSources(root, configDir); err == nil {
		err = src.useWorkspace(root, configDir)
	}
	if err != nil {
		return nil, err
	}
	return src, nil
}

// guardConfigDir denies the ringfence config dir (user policy, trust
// store, tokens) to every sandboxed command, and keeps each of its
// ancestors inside a write grant read-only, so that no command can rename
// a parent away and create a config dir of its own in its place (a
// renamed parent carries a mount over the dir along with it on some
// backends). The dir and the user policy file are guarded where they
// really are too (configTargets): a dotfile manager may link either into
// a repository that is the workspace. It runs after the flags, whose
// --write entries count too.
func guardConfigDir(d *policy.Defaults) {
	configDir, err := os.UserConfigDir()
	if err != nil || !filepath.IsAbs(configDir) {
		return
	}
	for _, target := range configTargets(policy.Clean(filepath.Join(configDir, "ringfence"))) {
		guardPath(d, target)
	}
}

// guardPath denies target and keeps its ancestors inside a write grant
// read-only (see guardConfigDir).
func guardPath(d *policy.Defaults, target string) {
	d.Restrictions = append(d.Restrictions, policy.Entry{Path: target, Access: policy.Deny})
	pinAncestors(d, target)
}

// pinAncestors keeps every ancestor of target inside a write grant
// read-only: a read-only or denied target could otherwise be replaced by
// renaming a parent away and making a fresh one (bwrap carries the mount
// over target along with its renamed parent).
func pinAncestors(d *policy.Defaults, target string) {
	grants := []string{}
	if d.Mode == policy.WorkspaceWrite {
		grants = append(grants, d.Root)
		for _, e := range d.Entries {
			if e.Access == policy.Write {
				grants = append(grants, policy.Clean(e.Path))
			}
		}
	}
	for _, g := range grants {
		if !policy.Contains(g, target) || g == target {
			continue
		}
		for a := filepath.Dir(target); a != g && policy.Contains(g, a); a = filepath.Dir(a) {
			if !slices.Contains(d.Restrictions, policy.Entry{Path: a, Access: policy.Read}) {
				d.Restrictions = append(d.Restrictions, policy.Entry{Path: a, Access: policy.Read})
			}
		}
	}
}

// userSources is the user's own policy: <configDir>/ringfence/policy.toml
// when it exists, else the built-in defaults.
func userSources(root, configDir string) (*policySources, error) {
	src := &policySources{base: policyfile.Base{Defaults: builtinDefaults(root)}}
	if configDir == "" {
		return src, nil
	}
	user := filepath.Join(configDir, "ringfence", "policy.toml")
	if _, err := os.Lstat(user); errors.Is(err, os.ErrNotExist) {
		return src, nil
	}
	if err := policyfile.CheckPrivate(user); err != nil {
		return nil, fmt.Errorf("refusing your own policy file: %w", err)
	}
	return src, src.loadTrusted(user, roleUser, root)
}

func (s *policySources) loadTrusted(path, role, root string) error {
	file, err := policyfile.LoadFile(path)
	if err != nil {
		return err
	}
	return s.useTrusted(file, role, root)
}

// useTrusted makes a trusted file the whole policy (and the only file
// shown). Omitted mode keeps the built-in one; everything else omitted is
// the file format's default.
func (s *policySources) useTrusted(file *policyfile.File, role, root string) error {
	path := file.Path
	if file.Mode == nil {
		m := s.base.Defaults.Mode
		file.Mode = &m
	}
	d, err := file.Defaults(root)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if d.Limits.Processes == 0 { // a file that names no process limit keeps the bound
		d.Limits.Processes = s.base.Defaults.Limits.Processes
	}
	if _, err := file.Exec.Compile(); err != nil {
		return fmt.Errorf("%s: [exec]: %w", path, err)
	}
	env, err := file.EnvPolicy()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	s.base = policyfile.Base{Defaults: d, Exec: file.Exec, Env: env, HomeShare: file.HomeLayer.Share}
	s.files, s.warnings = nil, nil
	s.note(file, role)
	return nil
}

func (s *policySources) note(file *policyfile.File, role string) {
	s.files = append(s.files, fileUse{Path: file.Path, Role: role, SHA256: file.Digest})
	if file.Mode != nil && *file.Mode == policy.DangerFullAccess {
		s.warnings = append(s.warnings, fmt.Sprintf("policy file %s sets mode = %q: commands run with no confinement at all", file.Path, policy.DangerFullAccess))
	}
}

// useWorkspace applies the root's .ringfence.toml: trusted, it replaces the
// base; untrusted, it may only narrow it. A file that is there but cannot
// be read (a dangling link, a FIFO) is an error, not silently skipped.
func (s *policySources) useWorkspace(root, configDir string) error {
	path, err := policyfile.CanonicalPath(filepath.Join(root, ".ringfence.toml"))
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	file, err := policyfile.LoadFile(path)
	if err != nil {
		return err
	}
	var note string
	if configDir != "" {
		trust, terr := policyfile.LoadTrust(policyfile.TrustStorePath(configDir))
		switch {
		case terr != nil:
			note = "The trust store cannot be used: " + terr.Error()
		case trust.Trusted(path, file.Digest):
			return s.useTrusted(file, roleTrusted, root) // the bytes just hashed, not a second read
		default:
			if r, ok := trust.Lookup(path); ok {
				note = fmt.Sprintf("It changed since you trusted it on %s.", r.TrustedAt.Format("2006-01-02 15:04 MST"))
			}
		}
	}
	narrowed, err := file.Narrow(s.base)
	if err != nil {
		var we *policyfile.WideningError
		if errors.As(err, &we) {
			return &trustRefusal{WideningError: we, note: note}
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	s.base = narrowed
	s.note(file, roleNarrowOnly)
	return nil
}
