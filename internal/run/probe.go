package run

// Capabilities is what this host offers for resource limits, for
// `ringfence doctor`.
type Capabilities struct {
	// CgroupV2 is set when a cgroup2 hierarchy is mounted; V2Delegated
	// when this process may make groups in it with memory and pids.
	CgroupV2    bool     `json:"cgroupV2"`
	V2Delegated bool     `json:"v2Delegated"`
	V2Controls  []string `json:"v2Controllers,omitempty"` // enabled for our children
	// V1Controllers lists the v1 hierarchies (memory, pids, cpuacct)
	// mounted with a cgroup.procs this process can see.
	V1Controllers []string `json:"v1Controllers,omitempty"`
	// Resources is how Run would enforce limits here: quota or monitor.
	Resources Resources `json:"resources"`
	// Reason says why not quota, when not.
	Reason string `json:"reason,omitempty"`
}
