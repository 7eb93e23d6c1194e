package fleetload

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// procKey names one process: a pid alone could be reused.
type procKey struct {
	PID   int
	Start uint64
}

// snapshot is one look at a running server from outside.
type snapshot struct {
	Procs    map[procKey]string // descendants of the server: "pid state cmdline"
	FDs      []string           // targets of /proc/PID/fd, one per descriptor
	HeldDirs []string           // directories among them, but the root
	// Mounts are the server's mount points under its own directories.
	// MountTotal is its mountinfo's line count, compared only when the
	// server has a mount namespace of its own (OwnNS): in the driver's
	// (the host's), other processes on the machine move it.
	Mounts     []string
	MountTotal int
	OwnNS      bool
}

// liveLeaks compares a server after the run (clients gone, settled) with
// its baseline after warm-up: more descendants, any zombie, more
// descriptors than fdSlack allows, a new held directory or a mount count
// that moved are leaks.
func liveLeaks(base, now snapshot, fdSlack int) []string {
	var out []string
	if len(now.Procs) > len(base.Procs) {
		out = append(out, fmt.Sprintf("processes: %d descendants after warm-up, %d after the run; new: %s",
			len(base.Procs), len(now.Procs), strings.Join(newProcs(base.Procs, now.Procs), "; ")))
	}
	for _, k := range sortedKeys(now.Procs) {
		if f := strings.Fields(now.Procs[k]); len(f) > 1 && f[1] == "Z" {
			out = append(out, "processes: zombie descendant "+now.Procs[k])
		}
	}
	if len(now.FDs) > len(base.FDs)+fdSlack {
		out = append(out, fmt.Sprintf("descriptors: %d after warm-up, %d after the run (slack %d); new targets: %s",
			len(base.FDs), len(now.FDs), fdSlack, strings.Join(multisetNew(base.FDs, now.FDs), ", ")))
	}
	if d := multisetNew(base.HeldDirs, now.HeldDirs); len(d) > 0 {
		out = append(out, "temp dirs: newly held after the run: "+strings.Join(d, ", "))
	}
	if d := multisetNew(base.Mounts, now.Mounts); len(d) > 0 {
		out = append(out, "mounts: new under the server's directories after the run: "+strings.Join(d, ", "))
	}
	if now.OwnNS && now.MountTotal != base.MountTotal {
		out = append(out, fmt.Sprintf("mounts: the server's own mount namespace had %d mounts after warm-up, %d after the run", base.MountTotal, now.MountTotal))
	}
	return out
}

// afterShutdown is what is left once a server has exited.
type afterShutdown struct {
	Alive      []string // descendants last seen that still run (same pid and start time)
	Orphans    []string // children the driver (a subreaper) gained
	DirsLeft   []string // held directories that still exist
	TmpLeft    []string // entries left in the server's TMPDIR or its home layer's work dirs
	RootLeft   []string // entries left in the root the clients emptied
	NewMounts  []string // host mount points under the server's directories
	ExitStatus string   // "" when the server exited 0
}

func (a afterShutdown) leaks() []string {
	var out []string
	add := func(what string, l []string) {
		if len(l) > 0 {
			out = append(out, what+": "+strings.Join(l, ", "))
		}
	}
	add("processes still alive after shutdown", a.Alive)
	add("processes orphaned to the driver", a.Orphans)
	add("temp dirs left after shutdown", a.DirsLeft)
	add("temp files left after shutdown", a.TmpLeft)
	add("files left in the root", a.RootLeft)
	add("mounts left in the host namespace", a.NewMounts)
	if a.ExitStatus != "" {
		out = append(out, "server exit: "+a.ExitStatus)
	}
	return out
}

func newProcs(base, now map[procKey]string) []string {
	var out []string
	for _, k := range sortedKeys(now) {
		if _, ok := base[k]; !ok {
			out = append(out, now[k])
		}
	}
	return out
}

// multisetNew lists what now has beyond base, counting repeats (two more
// sockets are two leaks even if one socket was there before).
func multisetNew(base, now []string) []string {
	left := map[string]int{}
	for _, s := range base {
		left[s]++
	}
	var out []string
	for _, s := range now {
		if left[s] > 0 {
			left[s]--
			continue
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[procKey]string) []procKey {
	return slices.SortedFunc(maps.Keys(m), func(a, b procKey) int { return a.PID - b.PID })
}
