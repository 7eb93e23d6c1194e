package run

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ringfence/ringfence/policy"
)

// Probe reports what this host offers. It proves quota by making (and
// removing) a real group, exactly as Run would.
func Probe() Capabilities {
	return probe("/sys/fs/cgroup")
}

func probe(root string) Capabilities {
	var c Capabilities
	self, _ := os.ReadFile("/proc/self/cgroup")
	own, _ := ownCgroup(string(self), "")
	for _, mnt := range []string{root, filepath.Join(root, "unified")} {
		if _, err := os.Stat(filepath.Join(mnt, "cgroup.controllers")); err != nil {
			continue
		}
		c.CgroupV2 = true
		sub, _ := os.ReadFile(filepath.Join(mnt, own, "cgroup.subtree_control"))
		c.V2Controls = strings.Fields(string(sub))
		c.V2Delegated = hasAll(string(sub), "memory", "pids")
		break
	}
	for _, ctrl := range []string{"memory", "pids", "cpuacct"} {
		if _, err := os.Stat(filepath.Join(root, ctrl, "cgroup.procs")); err == nil {
			c.V1Controllers = append(c.V1Controllers, ctrl)
		}
	}
	// Quota means memory and processes both: ask for a memory limit so the
	// trial group spans the memory hierarchy too (v1Controllers).
	g, err := newCgroup(root, policy.Limits{MemoryBytes: 1 << 40})
	if err != nil {
		c.Resources, c.Reason = ResourcesMonitor, err.Error()
		return c
	}
	g.remove()
	c.Resources = ResourcesQuota
	return c
}
