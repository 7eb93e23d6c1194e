package fleetload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// look takes a snapshot of the server with pid, whose root is root and
// whose own directories (its base, the directories it holds) are dirs.
func look(pid int, root string, dirs []string) (snapshot, error) {
	var s snapshot
	var err error
	if s.Procs, err = descendants(pid); err != nil {
		return s, err
	}
	fdDir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(fdDir)
	if err != nil {
		return s, err
	}
	for _, e := range ents {
		t, err := os.Readlink(filepath.Join(fdDir, e.Name()))
		if err != nil {
			continue // closed between the listing and the read: not held
		}
		s.FDs = append(s.FDs, t)
		if !filepath.IsAbs(t) || t == root {
			continue
		}
		if fi, err := os.Stat(filepath.Join(fdDir, e.Name())); err == nil && fi.IsDir() {
			s.HeldDirs = append(s.HeldDirs, t)
		}
	}
	slices.Sort(s.HeldDirs)
	mi, err := os.ReadFile(fmt.Sprintf("/proc/%d/mountinfo", pid))
	if err != nil {
		return s, err
	}
	mps, err := mountPoints(mi)
	if err != nil {
		return s, err
	}
	s.MountTotal = len(mps)
	for _, mp := range mps {
		for _, d := range append(dirs, s.HeldDirs...) {
			if under(mp, d) {
				s.Mounts = append(s.Mounts, mp)
				break
			}
		}
	}
	ours, err1 := os.Readlink("/proc/self/ns/mnt")
	its, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid))
	if err1 != nil || err2 != nil {
		return s, errors.Join(err1, err2)
	}
	s.OwnNS = ours != its
	return s, nil
}

// descendants are every process below pid, by the ppid links in /proc
// (threads are not processes: /proc lists thread-group leaders only).
func descendants(pid int) (map[procKey]string, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	type proc struct {
		key   procKey
		state byte
	}
	kids := map[int][]proc{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		st, err := parseStat(b)
		if err != nil {
			return nil, fmt.Errorf("/proc/%d/stat: %w", p, err)
		}
		kids[st.PPID] = append(kids[st.PPID], proc{procKey{p, st.StartTime}, st.State})
	}
	out := map[procKey]string{}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, k := range kids[p] {
			out[k.key] = fmt.Sprintf("%d %c %s", k.key.PID, k.state, cmdline(k.key.PID))
			queue = append(queue, k.key.PID)
		}
	}
	return out, nil
}

func cmdline(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// alive reports whether the process k names still exists (a zombie
// counts: nobody reaped it).
func alive(k procKey) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", k.PID))
	if err != nil {
		return false
	}
	st, err := parseStat(b)
	return err == nil && st.StartTime == k.Start
}

// selfChildren are this process's children, from every thread's list.
func selfChildren() map[int]bool {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	out := map[int]bool{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if p, err := strconv.Atoi(s); err == nil {
				out[p] = true
			}
		}
	}
	return out
}

// hostMountsUnder lists the mount points of this process's mount
// namespace (the host's, where the servers run) under any of dirs.
func hostMountsUnder(dirs []string) ([]string, int, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, 0, err
	}
	mps, err := mountPoints(mi)
	if err != nil {
		return nil, 0, err
	}
	var out []string
	for _, mp := range mps {
		for _, d := range dirs {
			if under(mp, d) {
				out = append(out, mp)
				break
			}
		}
	}
	return out, len(mps), nil
}

// entries lists what is under dir, as paths relative to it; directories
// named in keep (relative) are walked but not listed themselves.
func entries(dir string, keep func(rel string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." || (d.IsDir() && keep != nil && keep(rel)) {
			return nil
		}
		out = append(out, rel)
		return nil
	})
	return out, err
}
