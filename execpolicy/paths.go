package execpolicy

import (
	"path"
	"strings"
	"sync"
)

// dynMark starts the stand-in for a word part whose value is only known when
// the command runs ($VAR, $(…), brace expansion). A NUL cannot occur in a real
// argv (execve strings end at one), so an argv that contains it is treated as
// computed, which only makes the verdict more careful.
const dynMark = "\x00"

func isDynamic(s string) bool { return strings.Contains(s, dynMark) }

// systemDirs() are where the system's own programs live. A program named by a
// path in one of them is judged by its base name; any other path is not the
// program its name suggests (./ls in a working tree is whatever was written
// there).
var systemDirs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"/bin": true, "/sbin": true, "/usr/bin": true, "/usr/sbin": true,
		"/usr/local/bin": true, "/usr/local/sbin": true, "/opt/homebrew/bin": true,
		"/usr/libexec": true, "/run/current-system/sw/bin": true,
	}
})

// systemName returns the name a program is known by, and false when the
// program is a path outside the system directories.
func systemName(prog string) (string, bool) {
	if !strings.Contains(prog, "/") {
		return prog, prog != ""
	}
	clean := path.Clean(prog)
	if !strings.HasPrefix(clean, "/") || !systemDirs()[path.Dir(clean)] {
		return "", false
	}
	return path.Base(clean), true
}

// family folds versioned names (python3.12, pip3, g++-13) into the name the
// table knows.
func family(name string) string {
	base := strings.TrimRight(name, "0123456789.-")
	switch base {
	case "python", "pip", "pypy", "ruby", "perl", "php", "node", "gcc", "g++",
		"clang", "clang++", "lua", "java", "pydoc", "idle":
		return base
	}
	return name
}

// homeRef reports whether a word starts with the user's home directory.
func homeRef(w string) (rest string, ok bool) {
	for _, p := range []string{"~", dynMark + "$HOME"} {
		if w == p {
			return "", true
		}
		if strings.HasPrefix(w, p+"/") {
			return w[len(p)+1:], true
		}
	}
	return "", false
}

// broadTarget reports whether deleting, moving or recursively changing w
// would reach far beyond a project: the root, a top-level system directory,
// the home directory, or a parent of the working directory.
func broadTarget(w string) bool {
	w = strings.TrimRight(strings.TrimSuffix(w, "*"), "/")
	if rest, ok := homeRef(w); ok {
		return strings.Trim(rest, "/*.") == ""
	}
	if w == "" { // "/", "/*", "//"
		return true
	}
	if strings.HasPrefix(w, "/") {
		c := path.Clean(w)
		return strings.Count(c, "/") == 1 // /usr, /etc, /home …
	}
	c := path.Clean(w)
	return c == ".." || strings.HasPrefix(c, "../") && strings.Trim(c, "./") == ""
}

// rawDevice reports whether writing p writes a disk, memory or the kernel's
// emergency interface directly.
func rawDevice(p string) bool {
	if strings.HasPrefix(p, "/proc/sysrq-trigger") {
		return true
	}
	dev, ok := strings.CutPrefix(path.Clean(p), "/dev/")
	if !ok {
		return false
	}
	for _, d := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "dm-", "md", "loop", "mapper/", "mem", "kmem", "port", "sr"} {
		if strings.HasPrefix(dev, d) {
			return true
		}
	}
	return false
}

// harmlessSink reports whether writing p changes nothing that persists.
func harmlessSink(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/")
}

// persistPaths are files whose contents run later, outside the command that
// wrote them: writing one is how code escapes a sandbox (or gains a login).
var persistPaths = []string{
	"/etc/sudoers", "/etc/passwd", "/etc/shadow", "/etc/group", "/etc/crontab",
	"/etc/cron.", "/etc/systemd/", "/etc/ld.so.preload", "/etc/profile",
	"/etc/rc.local", "/etc/init.d/", "/root/", "/proc/sys/", "/sys/", "/boot/",
	"/var/spool/cron", "/Library/LaunchDaemons", "/etc/environment",
}

var persistHomeFiles = []string{
	".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile",
	".zshenv", ".zlogin", ".ssh/authorized_keys", ".ssh/config", ".ssh/rc", ".config/autostart/",
	".config/systemd/", "Library/LaunchAgents/", ".gitconfig", ".config/git/config",
}

// writeTarget judges writing to p. ok is false when the write is harmless.
func writeTarget(p string) (c Capability, reason string, ok bool) {
	switch {
	case harmlessSink(p):
		return 0, "", false
	case rawDevice(p):
		return Critical, "writes a raw disk, memory or kernel device", true
	case persistent(p):
		return Privilege, "writes a file that runs code or grants access later, outside this command", true
	case isDynamic(p):
		return Modify, "writes a file named at run time", true
	}
	return Modify, "writes " + p, true
}

func persistent(p string) bool {
	for _, q := range persistPaths {
		if strings.HasPrefix(p, q) {
			return true
		}
	}
	rest, ok := homeRef(p)
	if !ok {
		return strings.Contains(p, ".git/hooks/")
	}
	for _, q := range persistHomeFiles {
		if rest == q || strings.HasPrefix(rest, q) {
			return true
		}
	}
	return false
}

// credentialPath reports whether reading p reads a secret: private keys,
// cloud and registry credentials, .env files, the shadow file, another
// process's environment.
func credentialPath(p string) bool {
	if isDynamic(p) && !strings.HasPrefix(p, dynMark+"$HOME") {
		return false
	}
	base := path.Base(p)
	switch {
	case strings.HasPrefix(base, "id_") && strings.Contains(p, ".ssh") && !strings.HasSuffix(base, ".pub"):
		return true
	case base == ".env" || base == ".envrc" || strings.HasPrefix(base, ".env.") && !envTemplate(base):
		return true
	case strings.HasSuffix(base, ".key") || strings.HasSuffix(base, ".p12") || strings.HasSuffix(base, ".pfx"):
		return true
	case strings.HasSuffix(base, ".pem"): // certificates are .pem too: only key-like names
		return strings.Contains(base, "key") || strings.Contains(base, "priv") || strings.Contains(base, "secret") || strings.HasPrefix(base, "id_")
	case strings.HasPrefix(p, "/proc/") && strings.HasSuffix(p, "/environ"):
		return true
	}
	for _, s := range credentialSuffixes {
		if containsPathPart(p, s) {
			return true
		}
	}
	return false
}

// containsPathPart reports whether s occurs in p ending at the end of p or
// at a slash.
func containsPathPart(p, s string) bool {
	for off := 0; ; {
		i := strings.Index(p[off:], s)
		if i < 0 {
			return false
		}
		end := off + i + len(s)
		if end == len(p) || p[end] == '/' {
			return true
		}
		off += i + 1
	}
}

func envTemplate(base string) bool {
	for _, s := range []string{".example", ".sample", ".template", ".dist", ".defaults"} {
		if strings.HasSuffix(base, s) {
			return true
		}
	}
	return false
}

var credentialSuffixes = []string{
	".netrc", "_netrc", ".aws/credentials", ".aws/sso/cache", ".git-credentials",
	".npmrc", ".pypirc", ".docker/config.json", ".kube/config", ".config/gh/hosts.yml",
	".gnupg", ".password-store", ".vault-token", ".cargo/credentials", ".cargo/credentials.toml",
	".gem/credentials", ".config/gcloud", "application_default_credentials.json", ".azure",
	".terraform.d/credentials.tfrc.json", "/etc/shadow", "/etc/gshadow", "/etc/sudoers",
	".bash_history", ".zsh_history", ".ssh/known_hosts.old", ".pgpass", ".my.cnf",
	".config/op", ".local/share/keyrings", "Library/Keychains",
}
