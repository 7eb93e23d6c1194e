package policyfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/policy"
)

// File is a policy file: the deployment's defaults written down. TOML and
// JSON use the same keys (see InitTemplate for every one, commented):
//
//	mode, baseline, protect_git, protected, allow_aliased_writes,
//	unix_sockets, [network] mode/domains, [[entry]] path/access,
//	[limits] wall_clock/memory/processes/cpu_time, [exec] (execpolicy.Config)
//
// In JSON, "entry" is an array of objects and the other tables are objects.
// The [exec] table is execpolicy.Config, decoded with its own tags for each
// format.
type File struct {
	Mode               *policy.Mode         `toml:"mode" json:"mode"`         // omitted: read-only
	Baseline           *policy.Access       `toml:"baseline" json:"baseline"` // omitted: read
	Network            FileNetwork          `toml:"network" json:"network"`
	Entries            []FileEntry          `toml:"entry" json:"entry"`
	ProtectGit         policy.GitProtection `toml:"protect_git" json:"protect_git"`
	Protected          []string             `toml:"protected" json:"protected"`
	AllowAliasedWrites bool                 `toml:"allow_aliased_writes" json:"allow_aliased_writes"`
	UnixSockets        []string             `toml:"unix_sockets" json:"unix_sockets"`
	Limits             FileLimits           `toml:"limits" json:"limits"`
	Exec               execpolicy.Config    `toml:"exec" json:"exec"`
	// HomeLayer is the [home] table: how commands see the user's home.
	HomeLayer FileHome `toml:"home" json:"home"`

	// Home expands a leading "~" in paths. LoadFile sets it from the
	// user's home directory; after Parse it is "" and "~" is refused.
	Home string `toml:"-" json:"-"`
	// Path is where the file was loaded from, for messages.
	Path string `toml:"-" json:"-"`
}

// FileNetwork is the [network] table.
type FileNetwork struct {
	Mode    policy.NetworkMode `toml:"mode" json:"mode"` // omitted: deny
	Domains []string           `toml:"domains" json:"domains"`
}

// FileEntry is one [[entry]]. Path is absolute, "~/…" (the home
// directory) or relative (to the workspace root).
type FileEntry struct {
	Path   string         `toml:"path" json:"path"`
	Access *policy.Access `toml:"access" json:"access"`
}

// FileLimits is the [limits] table; omitted fields are unlimited.
type FileLimits struct {
	WallClock policy.Duration `toml:"wall_clock" json:"wall_clock"`
	Memory    policy.Size     `toml:"memory" json:"memory"`
	Processes int             `toml:"processes" json:"processes"`
	CPUTime   policy.Duration `toml:"cpu_time" json:"cpu_time"`
	// TmpSize bounds the private /tmp and /dev/shm; omitted: min(1 GiB, RAM/4).
	TmpSize policy.Size `toml:"tmp_size" json:"tmp_size"`
}

// FileHome is the [home] table. Share names cache directories ("~/…")
// whose writes reach the real home instead of the private layer; a
// directory of programs or start-up files is refused when the sandbox is
// built.
type FileHome struct {
	Share []string `toml:"share" json:"share"`
}

// maxFileSize bounds a policy file: a real one is a few KiB.
const maxFileSize = 1 << 20

// Parse reads a policy file's contents; format is "toml" or "json" (a
// leading dot is accepted). Unknown keys and wrong types are *Error
// with the line.
func Parse(data []byte, format string) (*File, error) {
	var (
		root *node
		err  error
		tag  = strings.TrimPrefix(strings.ToLower(format), ".")
	)
	switch tag {
	case "toml":
		root, err = parseTOMLTree(data)
	case "json":
		root, err = parseJSONTree(data)
	default:
		return nil, &Error{Msg: "unknown format " + clip(format) + ": want toml or json"}
	}
	if err != nil {
		return nil, err
	}
	f := &File{}
	if err := (&decoder{tag: tag}).decode(root, reflect.ValueOf(f).Elem(), ""); err != nil {
		return nil, err
	}
	return f, nil
}

// LoadFile reads and parses a policy file, choosing the format by its
// extension (.toml or .json), and sets Home and Path.
func LoadFile(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	switch {
	case err != nil:
		return nil, &Error{File: path, Msg: "cannot read: " + errText(err), Err: err}
	case len(data) > maxFileSize:
		return nil, &Error{File: path, Msg: "larger than 1 MiB"}
	}
	f, err := Parse(data, filepath.Ext(path))
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			fe.File = path
		}
		return nil, err
	}
	f.Path = path
	f.Home, _ = os.UserHomeDir()
	return f, nil
}

// errText is an OS error without the path it repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Discover finds the policy file for a workspace: .ringfence.toml in the
// root, else <userConfigDir>/ringfence/policy.toml. (--policy, handled by
// the CLI, comes before both.) The root's file is itself a protected
// subpath, so a sandboxed command cannot rewrite the policy it runs under.
func Discover(root, userConfigDir string) (string, bool) {
	candidates := []string{filepath.Join(root, ".ringfence.toml")}
	if userConfigDir != "" {
		candidates = append(candidates, filepath.Join(userConfigDir, "ringfence", "policy.toml"))
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			return c, true
		}
	}
	return "", false
}
