package probe

import "github.com/ringfence/ringfence/internal/confine/linux"

// Sources are where the facts come from. Host uses the real ones; a test
// replaces any of them to simulate a host (no user namespaces, no Landlock,
// no bwrap) without needing one. A nil function is a fact source this
// platform lacks, reported as such.
type Sources struct {
	Uname    func() (release, machine string, err error)
	Euid     func() int
	ReadFile func(path string) ([]byte, error) // /proc and /sys files
	// LandlockABI is landlock_create_ruleset(NULL, 0, VERSION).
	LandlockABI func() (int, error)
	// Seccomp reports whether a filter and user notification can be used.
	Seccomp func() (filter, notify bool, err error)
	// TryUserNS runs a child in new user, mount and pid namespaces.
	TryUserNS func() error
	// TryCgroup makes and removes a test group under dir.
	TryCgroup func(dir string) error
	// Bwrap finds bwrap and runs a trial sandbox.
	Bwrap func() (path, version string, err error)
	// Linux runs the linux backend's own trial and returns the steps it
	// leaves out here (nil: the backend stands or falls with TryUserNS).
	Linux func() (linux.Degraded, error)
	// Getenv reads this process's environment (container signs).
	Getenv func(string) string
	// Init says where the sandbox init is executed from (the carried
	// small init in a sealed memfd, or the ringfence binary and why).
	Init func() string
}

// Files read through Sources.ReadFile.
const (
	fileMaxUserNS      = "/proc/sys/user/max_user_namespaces"
	fileUnprivClone    = "/proc/sys/kernel/unprivileged_userns_clone"
	fileAppArmorUserNS = "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
	fileMountinfo      = "/proc/self/mountinfo"
	fileCgroup         = "/proc/self/cgroup"
)
