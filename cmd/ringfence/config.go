package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/policy/policyfile"
)

// sandboxFlags are the flags every subcommand that builds a sandbox shares
// (run, mcp, policy explain), so one flag means one thing everywhere.
type sandboxFlags struct {
	net                                      networkFlags
	root, mode, network, policyFile, backend string
	write, readOnly, deny, env               []string
	timeout, cpuTime, killAfter              time.Duration
	memory, mountPath                        string
	pids                                     int
	home, tmpSize                            string
	homeShare                                []string
}

func (f *sandboxFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.root, "root", "", "the workspace directory (default: the current directory)")
	fs.StringVar(&f.mode, "mode", "workspace-write", "file-effect mode: read-only, workspace-write or danger-full-access")
	fs.StringVar(&f.network, "network", "deny", "network mode: deny, loopback, domains (see --allow-domain) or allow-all")
	f.net.register(fs)
	fs.StringArrayVar(&f.write, "write", nil, "also make `PATH` writable (repeatable)")
	fs.StringArrayVar(&f.readOnly, "read-only", nil, "make `PATH` read-only, e.g. inside the workspace (repeatable)")
	fs.StringArrayVar(&f.deny, "deny", nil, "make `PATH` unreadable and unwritable (repeatable)")
	fs.StringVar(&f.policyFile, "policy", "", "policy `FILE` (.toml or .json), used as it is; default: ~/.config/ringfence/policy.toml, which .ringfence.toml in the root may only narrow unless trusted (ringfence policy trust)")
	fs.StringVar(&f.backend, "backend", "auto", "confinement backend: auto, linux, landlock or bwrap")
	fs.DurationVar(&f.timeout, "timeout", 0, "stop the whole process tree after this `DURATION` (e.g. 30s; 0: none)")
	fs.DurationVar(&f.killAfter, "kill-after", ringfence.DefaultKillAfter, "after a timeout or an interrupt, send SIGTERM to the tree and SIGKILL this `DURATION` later (0: SIGKILL at once)")
	fs.StringArrayVar(&f.env, "env", nil, "also pass `NAME[=VALUE]` (NAME alone copies it from ringfence's environment, even one the default allow-list keeps out as a credential; repeatable)")
	fs.StringVar(&f.memory, "memory", "", "memory limit for the whole tree, e.g. 512M")
	fs.IntVar(&f.pids, "pids", 0, "limit on the processes in the tree, ringfence's own runner included; where a cgroup enforces it, threads count too (default "+strconv.Itoa(policy.DefaultProcesses)+")")
	fs.StringVar(&f.mountPath, "mount-path", "", "show the workspace at `PATH` inside the sandbox and in ringfence's notes (the linux and bwrap backends mount it there; default: its real path; servers use /workspace)")
	fs.StringVar(&f.home, "home", "private", "how commands see your home: private (real files read, writes kept in a layer per workspace; see `ringfence cache`) or read-only")
	fs.StringArrayVar(&f.homeShare, "home-share", nil, "share the cache `DIR` under home with the host: writes there reach the real home (never a directory of programs or start-up files; repeatable)")
	fs.StringVar(&f.tmpSize, "tmp-size", "", "size of the private /tmp and /dev/shm, e.g. 256M (default: min(1G, RAM/4))")
	fs.DurationVar(&f.cpuTime, "cpu-time", 0, "CPU-time limit for the whole tree, e.g. 30s")
}

// loaded is what the flags and the policy files resolve to.
type loaded struct {
	config     ringfence.Config
	files      []fileUse // the policy files that apply, and how
	fileSource string    // the last of them, or ""
	warnings   []string  // for the person, on stderr (danger-full-access from a file)
	classifier *execpolicy.Classifier
}

// load turns flags into a sandbox configuration: built-in defaults, then the
// policy files (see loadPolicySources), then the flags the person set
// explicitly, which win.
func (f *sandboxFlags) load(fs *pflag.FlagSet) (*loaded, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	root, err := f.rootDir()
	if err != nil {
		return nil, err
	}
	src, err := loadPolicySources(root, f.policyFile)
	if err != nil {
		return nil, err
	}
	out := &loaded{files: src.files, warnings: src.warnings}
	if len(src.files) > 0 {
		out.fileSource = src.files[len(src.files)-1].Path
	}
	if out.classifier, err = src.base.Exec.Compile(); err != nil {
		return nil, err
	}
	d := src.base.Defaults
	if err := f.applyFlags(fs, root, &d); err != nil {
		return nil, err
	}
	guardConfigDir(&d)
	if err := f.checkResolved(fs, &d); err != nil {
		return nil, err
	}
	env, err := parseEnv(f.env)
	if err != nil {
		return nil, err
	}
	mount := f.mountPath
	if mount == "" {
		mount = root
	}
	var home ringfence.HomeConfig
	switch f.home {
	case "private":
		home.On, home.Share = true, f.homeShare
		home.Share = append(append([]string(nil), src.base.HomeShare...), f.homeShare...)
	case "read-only":
		if len(f.homeShare) > 0 {
			return nil, fmt.Errorf("--home-share needs --home private")
		}
	default:
		return nil, fmt.Errorf("--home: want private or read-only, not %q", f.home)
	}
	out.config = ringfence.Config{Root: root, MountPath: mount, Defaults: d, Backend: f.backend, Timeout: f.timeout, KillAfter: killAfter(f.killAfter), Env: env, EnvPolicy: src.base.Env, Home: home}
	return out, nil
}

// loadFor is load for a subcommand: a workspace policy file refused for
// widening exits 121 (policy refused), any other failure 125, and the
// warnings go to the command's stderr.
func (f *sandboxFlags) loadFor(cmd *cobra.Command) (*loaded, error) {
	ld, err := f.load(cmd.Flags())
	if err != nil {
		return nil, loadFailure(err)
	}
	for _, w := range ld.warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "ringfence: warning:", w)
	}
	return ld, nil
}

func loadFailure(err error) error {
	var we *policyfile.WideningError
	if errors.As(err, &we) {
		return &exitError{code: exitPolicy, err: err}
	}
	return &exitError{code: exitUsage, err: err}
}

func (f *sandboxFlags) rootDir() (string, error) {
	root := f.root
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		root = wd
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("--root: %w", err)
	}
	return real, nil
}

// applyFlags lays the explicitly set flags over the defaults. Entries from
// flags are deployment entries: the person at the terminal is trusted.
func (f *sandboxFlags) applyFlags(fs *pflag.FlagSet, root string, d *policy.Defaults) error {
	var err error
	if fs.Changed("mode") {
		if d.Mode, err = policy.ParseMode(f.mode); err != nil {
			return fmt.Errorf("--mode: %w", err)
		}
	}
	if fs.Changed("network") {
		if d.Network.Mode, err = policy.ParseNetworkMode(f.network); err != nil {
			return fmt.Errorf("--network: %w", err)
		}
	}
	if err := f.net.apply(fs, d); err != nil {
		return err
	}
	for _, e := range []struct {
		paths  []string
		access policy.Access
	}{{f.write, policy.Write}, {f.readOnly, policy.Read}, {f.deny, policy.Deny}} {
		for _, p := range e.paths {
			d.Entries = append(d.Entries, policy.Entry{Path: absUnder(root, p), Access: e.access})
		}
	}
	return f.applyLimits(d)
}

func (f *sandboxFlags) applyLimits(d *policy.Defaults) error {
	if f.memory != "" {
		n, err := policy.ParseSize(f.memory)
		if err != nil {
			return fmt.Errorf("--memory: %w", err)
		}
		d.Limits.MemoryBytes = n
	}
	if f.tmpSize != "" {
		n, err := policy.ParseSize(f.tmpSize)
		if err != nil || n <= 0 {
			return fmt.Errorf("--tmp-size: want a positive size such as 256M")
		}
		d.Limits.ScratchBytes = n
	}
	if f.pids < 0 {
		return fmt.Errorf("--pids: must not be negative")
	}
	if f.pids > 0 {
		d.Limits.Processes = f.pids
	}
	if f.cpuTime > 0 {
		d.Limits.CPUTime = f.cpuTime
	}
	return nil
}

// absUnder makes a flag path absolute: relative paths are taken relative to
// the current directory, as a shell user expects.
func absUnder(root, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Join(root, p)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// parseEnv reads --env NAME=VALUE or NAME (copied from ringfence's own
// environment; an unset NAME is an error, so a typo is not silently empty).
func parseEnv(items []string) (map[string]string, error) {
	out := map[string]string{}
	for _, it := range items {
		name, value, hasValue := strings.Cut(it, "=")
		if name == "" || strings.ContainsAny(name, " \t\n\x00") {
			return nil, fmt.Errorf("--env %q: want NAME or NAME=VALUE", it)
		}
		if !hasValue {
			v, ok := os.LookupEnv(name)
			if !ok {
				return nil, fmt.Errorf("--env %s: not set in ringfence's environment", name)
			}
			value = v
		}
		out[name] = value
	}
	return out, nil
}

// loadClassifier is the classifier the policy files give (an explicit
// file, else the user's and the current directory's, trusted or narrowing
// only, exactly as run would use them), or the built-in one.
func loadClassifier(path string, explicit bool) (*execpolicy.Classifier, error) {
	wd, err := os.Getwd()
	if err == nil {
		wd, err = filepath.EvalSymlinks(wd)
	}
	if err != nil {
		return nil, err
	}
	if !explicit {
		path = ""
	}
	src, err := loadPolicySources(wd, path)
	if err != nil {
		return nil, err
	}
	return src.base.Exec.Compile()
}
