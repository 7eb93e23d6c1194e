package policyfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"

	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/policy"
)

// File is a policy file: the deployment's defaults written down. TOML and
// JSON use the same keys (see InitTemplate for every one, commented):
//
//	mode, baseline, protect_git, protected, protected_names, allow_aliased_writes,
//	unix_sockets, [network] mode/domains, [[entry]] path/access,
//	[limits] wall_clock/memory/processes/cpu_time, [exec] (execpolicy.Config)
//
// In JSON, "entry" is an array of objects and the other tables are objects.
// The [exec] table is execpolicy.Config, decoded with its own tags for each
// format.
type File struct {
	Mode       *policy.Mode         `toml:"mode" json:"mode"`         // omitted: read-only
	Baseline   *policy.Access       `toml:"baseline" json:"baseline"` // omitted: read
	Network    FileNetwork          `toml:"network" json:"network"`
	Entries    []FileEntry          `toml:"entry" json:"entry"`
	ProtectGit policy.GitProtection `toml:"protect_git" json:"protect_git"`
	Protected  []string             `toml:"protected" json:"protected"`
	// ProtectedNames are more names held at any depth under a writable
	// root, like .git's hooks or .vscode (policy.Defaults.ExtraProtectedNames).
	ProtectedNames     []string          `toml:"protected_names" json:"protected_names"`
	AllowAliasedWrites bool              `toml:"allow_aliased_writes" json:"allow_aliased_writes"`
	UnixSockets        []string          `toml:"unix_sockets" json:"unix_sockets"`
	Limits             FileLimits        `toml:"limits" json:"limits"`
	Exec               execpolicy.Config `toml:"exec" json:"exec"`
	Env                FileEnv           `toml:"env" json:"env"`
	// HomeLayer is the [home] table: how commands see the user's home.
	HomeLayer FileHome `toml:"home" json:"home"`

	// Home expands a leading "~" in paths. LoadFile sets it from the
	// user's home directory; after Parse it is "" and "~" is refused.
	Home string `toml:"-" json:"-"`
	// Path is where the file was loaded from, for messages.
	Path string `toml:"-" json:"-"`
	// Digest is the SHA-256 (hex) of exactly the bytes LoadFile parsed,
	// what a trust record pins.
	Digest string `toml:"-" json:"-"`

	keys map[string]bool // every key path the file sets ("limits.memory", "entry[].path")
}

// FileEnv is the [env] table: which variables commands get (policy.Env).
type FileEnv struct {
	// Pass names host variables passed as they are, credential-like or not.
	Pass []string `toml:"pass" json:"pass"`
	// Set are fixed values.
	Set map[string]string `toml:"set" json:"set"`
	// Clear passes no host variable but those in Pass (PATH is the
	// default system one). Omitted: false, the allow-list.
	Clear *bool `toml:"clear" json:"clear"`
}

// EnvPolicy is the [env] table as a policy.Env, its names checked.
func (f *File) EnvPolicy() (policy.Env, error) {
	e := policy.Env{Pass: f.Env.Pass, Set: f.Env.Set, Clear: f.Env.Clear != nil && *f.Env.Clear}
	for _, n := range e.Pass {
		if err := checkEnvName("env.pass", n); err != nil {
			return policy.Env{}, err
		}
	}
	for n, v := range e.Set {
		if err := checkEnvName("env.set", n); err != nil {
			return policy.Env{}, err
		}
		if strings.IndexByte(v, 0) >= 0 {
			return policy.Env{}, &policy.InvalidError{Field: "env.set", Value: n, Reason: "value contains NUL"}
		}
	}
	return e, nil
}

func checkEnvName(field, n string) error {
	if n == "" || strings.ContainsAny(n, "=\x00") {
		return &policy.InvalidError{Field: field, Value: n, Reason: "want a variable name (no \"=\", no NUL)"}
	}
	return nil
}

// Sets reports whether the file itself sets key, a dotted path such as
// "network.mode" or "entry[].path" (array elements as "[]").
func (f *File) Sets(key string) bool { return f.keys[key] }

// FileNetwork is the [network] table. Under mode "domains", allow (or its
// older name domains: the two lists are joined) and deny hold netproxy
// rules, and reasons maps a deny rule to what the model is told.
type FileNetwork struct {
	Mode    policy.NetworkMode `toml:"mode" json:"mode"` // omitted: deny
	Domains []string           `toml:"domains" json:"domains"`
	Allow   []string           `toml:"allow" json:"allow"`
	Deny    []string           `toml:"deny" json:"deny"`
	Reasons map[string]string  `toml:"reasons" json:"reasons"`
}

// Policy is the table as a policy.Network.
func (n FileNetwork) Policy() policy.Network {
	return policy.Network{Mode: n.Mode, Domains: append(append([]string(nil), n.Domains...), n.Allow...), Deny: n.Deny, Reasons: n.Reasons}
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
	f := &File{keys: map[string]bool{}}
	if err := (&decoder{tag: tag}).decode(root, reflect.ValueOf(f).Elem(), ""); err != nil {
		return nil, err
	}
	collectKeys(root, "", f.keys)
	return f, nil
}

// LoadFile reads and parses a policy file, choosing the format by its
// extension (.toml or .json), and sets Home, Path and Digest. The file is
// read once: the bytes hashed are the bytes parsed, so a file changed
// between the two cannot slip past a trust record.
func LoadFile(path string) (*File, error) {
	data, err := readPolicy(path)
	if err != nil {
		return nil, err
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
	f.Digest = Digest(data)
	f.Home, _ = os.UserHomeDir()
	return f, nil
}

// Digest is the hex SHA-256 of a policy file's bytes.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// readPolicy reads at most maxFileSize bytes of a regular file. It opens
// without blocking and checks the opened file (not the name), so a FIFO or
// device planted under a policy file's name is refused rather than hung on.
func readPolicy(path string) ([]byte, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot open: " + errText(err), Err: err}
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot stat: " + errText(err), Err: err}
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file"}
	}
	data, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	switch {
	case err != nil:
		return nil, &Error{File: path, Msg: "cannot read: " + errText(err), Err: err}
	case len(data) > maxFileSize:
		return nil, &Error{File: path, Msg: "larger than 1 MiB"}
	}
	return data, nil
}

// errText is an OS error without the path it repeats.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
