package probe

// Report is what this host offers a sandbox, as facts with the reason
// behind every "no". It is the body of `ringfence doctor --json`.
type Report struct {
	Kernel   string   `json:"kernel"`
	Arch     string   `json:"arch"`
	Root     bool     `json:"root"`
	Landlock Landlock `json:"landlock"`
	Seccomp  Seccomp  `json:"seccomp"`
	UserNS   UserNS   `json:"userNamespaces"`
	Cgroups  Cgroups  `json:"cgroups"`
	Bwrap    Bwrap    `json:"bwrap"`
	// Init is where the sandbox init is executed from (empty: not known).
	Init string `json:"init,omitempty"`
	// Linux is the linux backend's own trial (see LinuxTrial).
	Linux LinuxTrial `json:"linuxBackend"`
	// Container says whether this is a container and what its runtime
	// took away.
	Container Container `json:"container"`
	// Auto is the backend `--backend auto` picks here ("none": refuse).
	Auto        string    `json:"auto"`
	AutoReasons []string  `json:"autoReasons"`
	Features    []Feature `json:"features"` // for Auto's backend
	// NetworkDomains is how each backend holds `--network domains` here
	// (Feature.Name is the backend): the one feature whose support differs
	// most between backends, so doctor shows it for all of them.
	NetworkDomains []Feature `json:"networkDomains"`
}

// Landlock is the best Landlock ABI the kernel offers (0: none).
type Landlock struct {
	ABI    int    `json:"abi"`
	Reason string `json:"reason,omitempty"` // why 0
}

// Seccomp says whether filters (and user notification) can be installed.
type Seccomp struct {
	Available  bool   `json:"available"`
	UserNotify bool   `json:"userNotify"` // SECCOMP_RET_USER_NOTIF is supported
	Reason     string `json:"reason,omitempty"`
}

// UserNS says whether this user can create the namespaces a sandbox needs,
// judged by a trial in a child process, with every setting that explains a
// failure.
type UserNS struct {
	Available bool     `json:"available"`
	Reasons   []string `json:"reasons,omitempty"`
}

// Cgroups describes the cgroup hierarchy and whether this user can make
// groups for the memory and pids controllers.
type Cgroups struct {
	Version string        `json:"version"` // v1, v2, hybrid, none
	Mounts  []CgroupMount `json:"mounts,omitempty"`
	Memory  Controller    `json:"memory"`
	Pids    Controller    `json:"pids"`
}

// CgroupMount is one mounted hierarchy.
type CgroupMount struct {
	Path        string   `json:"path"`
	Version     string   `json:"version"` // v1 or v2
	Controllers []string `json:"controllers,omitempty"`
}

// Controller is where a controller's groups would be made, and whether
// making one (mkdir + rmdir of a test group) worked.
type Controller struct {
	Version   string `json:"version,omitempty"` // the hierarchy holding it: v1 or v2
	Dir       string `json:"dir,omitempty"`     // the parent a group would be created in
	Delegated bool   `json:"delegated"`         // a group could be created (and removed)
	Reason    string `json:"reason,omitempty"`
}

// Bwrap is the bubblewrap found on PATH, if any, and whether it works.
type Bwrap struct {
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	Usable  bool   `json:"usable"`
	Reason  string `json:"reason,omitempty"`
}

// Level is how completely a feature is enforced.
type Level string

// Levels.
const (
	Full    Level = "full"
	Partial Level = "partial"
	None    Level = "none"
)

// Feature is one policy feature's enforcement by one backend on this host.
type Feature struct {
	Name   string `json:"name"`
	Level  Level  `json:"level"`
	Reason string `json:"reason"`
}
