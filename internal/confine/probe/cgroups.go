package probe

import (
	"path"
	"slices"
	"strings"
)

// v1Controllers are the names a v1 mount's options may carry; other
// options (rw, nsdelegate, name=systemd, …) are not controllers.
var v1Controllers = []string{"blkio", "cpu", "cpuacct", "cpuset", "devices", "freezer", "hugetlb",
	"memory", "misc", "net_cls", "net_prio", "perf_event", "pids", "rdma"}

// cgroupFacts reads the mounted hierarchies and this process's groups,
// then tries to make a group for memory and for pids where each lives.
func cgroupFacts(s Sources) Cgroups {
	var c Cgroups
	mountinfo, _ := read(s, fileMountinfo)
	cg, _ := read(s, fileCgroup)
	own := ownGroups(cg)
	for _, m := range parseMounts(mountinfo) {
		if m.Version == "v2" {
			ctl, _ := read(s, path.Join(m.Path, own["v2"], "cgroup.controllers"))
			m.Controllers = strings.Fields(ctl)
		}
		c.Mounts = append(c.Mounts, m)
	}
	c.Version = version(c.Mounts)
	c.Memory = controller(s, c.Mounts, own, "memory")
	c.Pids = controller(s, c.Mounts, own, "pids")
	return c
}

func read(s Sources, p string) (string, bool) {
	if s.ReadFile == nil {
		return "", false
	}
	b, err := s.ReadFile(p)
	return string(b), err == nil
}

// parseMounts picks the cgroup and cgroup2 lines out of mountinfo.
func parseMounts(mountinfo string) []CgroupMount {
	var out []CgroupMount
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		switch tail[0] {
		case "cgroup2":
			out = append(out, CgroupMount{Path: fields[4], Version: "v2"})
		case "cgroup":
			var ctl []string
			for _, o := range strings.Split(tail[2], ",") {
				if slices.Contains(v1Controllers, o) {
					ctl = append(ctl, o)
				}
			}
			out = append(out, CgroupMount{Path: fields[4], Version: "v1", Controllers: ctl})
		}
	}
	return out
}

// ownGroups maps each v1 controller (and "v2") to this process's group
// path, from /proc/self/cgroup ("ID:controllers:path").
func ownGroups(text string) map[string]string {
	own := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			own["v2"] = parts[2]
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			own[ctl] = parts[2]
		}
	}
	return own
}

func version(mounts []CgroupMount) string {
	var v1, v2 bool
	for _, m := range mounts {
		v1, v2 = v1 || m.Version == "v1", v2 || m.Version == "v2"
	}
	switch {
	case v1 && v2:
		return "hybrid"
	case v1:
		return "v1"
	case v2:
		return "v2"
	}
	return "none"
}

// controller finds the hierarchy holding name and tries a group there.
func controller(s Sources, mounts []CgroupMount, own map[string]string, name string) Controller {
	for _, m := range mounts {
		if !slices.Contains(m.Controllers, name) {
			continue
		}
		group := own[name]
		if m.Version == "v2" {
			group = own["v2"]
		}
		c := Controller{Version: m.Version, Dir: path.Join(m.Path, group)}
		switch {
		case s.TryCgroup == nil:
			c.Reason = "not supported on this platform"
		default:
			if err := s.TryCgroup(c.Dir); err != nil {
				c.Reason = "cannot create a group: " + err.Error()
			} else {
				c.Delegated = true
			}
		}
		return c
	}
	return Controller{Reason: "the " + name + " controller is not mounted (neither v1 nor available in this v2 group)"}
}
