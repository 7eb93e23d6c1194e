package probe

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/internal/confine/linux"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

const ciMountinfo = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`

const ciCgroup = "8:pids:/\n4:memory:/agent\n40:name=systemd:/\n0::/\n"

// ciHost is a host like CI's: root, Linux 6.18, Landlock 7, seccomp with
// user notification, user namespaces, hybrid cgroups, bwrap 0.8.0.
func ciHost() Sources {
	files := map[string]string{
		fileMaxUserNS: "96364\n", fileMountinfo: ciMountinfo, fileCgroup: ciCgroup,
		"/sys/fs/cgroup/unified/cgroup.controllers": "hugetlb\n",
	}
	return Sources{
		Uname:       func() (string, string, error) { return "6.18.44", "x86_64", nil },
		Euid:        func() int { return 0 },
		ReadFile:    fakeFiles(files),
		LandlockABI: func() (int, error) { return 7, nil },
		Seccomp:     func() (bool, bool, error) { return true, true, nil },
		TryUserNS:   func() error { return nil },
		TryCgroup:   func(string) error { return nil },
		Bwrap:       func() (string, string, error) { return "/usr/bin/bwrap", "0.8.0", nil },
	}
}

func fakeFiles(files map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
}

// ubuntu is an unprivileged user on Ubuntu 24.04: AppArmor forbids user
// namespaces, cgroup v2 only and not delegated, no bwrap installed.
func ubuntu(withBwrap bool) Sources {
	s := ciHost()
	s.Euid = func() int { return 1000 }
	s.ReadFile = fakeFiles(map[string]string{
		fileMaxUserNS: "63000", fileAppArmorUserNS: "1\n", fileUnprivClone: "1",
		fileMountinfo: "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n",
		fileCgroup:    "0::/user.slice/user-1000.slice/session-2.scope\n",
		"/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope/cgroup.controllers": "memory pids\n",
	})
	s.TryUserNS = func() error {
		return errors.New("clone(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID): EACCES (permission denied)")
	}
	s.TryCgroup = func(string) error { return errors.New("mkdir: EACCES") }
	s.Bwrap = func() (string, string, error) {
		return "", "", errors.New("bwrap is not installed (not found on PATH)")
	}
	if withBwrap { // a setuid bwrap needs no unprivileged user namespaces
		s.Bwrap = func() (string, string, error) { return "/usr/bin/bwrap", "0.9.0", nil }
	}
	return s
}

// oldKernel has neither user namespaces nor Landlock nor bwrap.
func oldKernel() Sources {
	s := ubuntu(false)
	s.Uname = func() (string, string, error) { return "4.19.0", "x86_64", nil }
	s.LandlockABI = func() (int, error) { return 0, errors.New("the kernel was built without Landlock") }
	s.Seccomp = func() (bool, bool, error) { return true, false, errors.New("user notification unsupported: EINVAL") }
	s.ReadFile = fakeFiles(map[string]string{fileMaxUserNS: "0", fileMountinfo: ciMountinfo, fileCgroup: ciCgroup})
	return s
}

// podmanMountinfo is a runc container's: /proc with the runtime's masks
// and read-only paths, /sys read-only.
const podmanMountinfo = `74 60 0:40 / / rw,relatime - overlay overlay rw
75 74 0:41 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
46 75 0:41 /bus /proc/bus ro,nosuid,nodev,noexec,relatime - proc proc rw
49 75 0:41 /sys /proc/sys ro,nosuid,nodev,noexec,relatime - proc proc rw
50 75 0:46 / /proc/acpi ro,relatime - tmpfs tmpfs ro
51 75 0:42 /null /proc/keys rw,nosuid,noexec - tmpfs tmpfs rw,size=65536k,mode=755
80 74 0:50 / /sys ro,nosuid,nodev,noexec,relatime - sysfs sysfs ro
`

// podman is root in a podman/runc container: the runtime's seccomp profile
// and capability set, a masked /proc; user namespaces work, and the linux
// backend's trial leaves out its fresh /proc and host name. With noUserNS
// the profile refuses new namespaces (Docker's default).
func podman(noUserNS bool) Sources {
	s := ciHost()
	files := map[string]string{
		fileMaxUserNS: "96364\n", fileMountinfo: podmanMountinfo, fileCgroup: "0::/\n",
		fileContainerEnv: "engine=\"podman-4.3.1\"\n",
		fileSelfStatus:   "Name:\tringfence\nCapBnd:\t00000000800405fb\nNoNewPrivs:\t0\nSeccomp:\t2\nSeccomp_filters:\t1\n",
		fileCapLastCap:   "40\n",
	}
	s.ReadFile = fakeFiles(files)
	s.Getenv = func(k string) string {
		if k == "container" {
			return "podman"
		}
		return ""
	}
	s.TryCgroup = func(string) error { return errors.New("mkdir: EROFS") }
	s.Bwrap = func() (string, string, error) {
		return "", "", errors.New("bwrap is not installed (not found on PATH)")
	}
	s.Linux = func() (linux.Degraded, error) { return linux.Degraded{HostProc: true, NoHostname: true}, nil }
	if noUserNS {
		s.TryUserNS = func() error {
			return errors.New("clone(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID): EPERM (operation not permitted)")
		}
		s.Linux = func() (linux.Degraded, error) {
			return linux.Degraded{}, errors.New("linux backend unavailable: creating user, mount and pid namespaces failed: operation not permitted")
		}
	}
	return s
}

func TestProbeSimulatedHosts(t *testing.T) {
	tests := []struct {
		name    string
		src     Sources
		auto    string
		userns  bool
		reasons []string // UserNS.Reasons
	}{
		{"ci", ciHost(), "linux", true, nil},
		{"ubuntu-no-userns", ubuntu(false), "landlock", false, []string{
			"kernel.apparmor_restrict_unprivileged_userns is 1 (AppArmor restricts unprivileged user namespaces)",
			"trial failed: clone(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID): EACCES (permission denied)"}},
		{"ubuntu-setuid-bwrap", ubuntu(true), "bwrap", false, nil},
		{"podman-default-profile", podman(false), "linux", true, nil},
		{"podman-no-namespaces", podman(true), "landlock", false, nil},
		{"old-kernel", oldKernel(), "none", false, []string{
			"user.max_user_namespaces is 0",
			"trial failed: clone(CLONE_NEWUSER|CLONE_NEWNS|CLONE_NEWPID): EACCES (permission denied)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Probe(tt.src)
			if r.Auto != tt.auto || r.UserNS.Available != tt.userns {
				t.Errorf("auto %q userns %v, want %q %v", r.Auto, r.UserNS.Available, tt.auto, tt.userns)
			}
			if tt.reasons != nil {
				if diff := cmp.Diff(tt.reasons, r.UserNS.Reasons); diff != "" {
					t.Errorf("UserNS.Reasons (-want +got):\n%s", diff)
				}
			}
			golden(t, tt.name+".txt", r.Text())
			js, err := r.JSON()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".json", string(js)+"\n")
		})
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", name, diff)
	}
}

func TestCgroupFacts(t *testing.T) {
	c := Probe(ciHost()).Cgroups
	if c.Version != "hybrid" || c.Memory.Dir != "/sys/fs/cgroup/memory/agent" || c.Pids.Dir != "/sys/fs/cgroup/pids" ||
		!c.Memory.Delegated || c.Memory.Version != "v1" {
		t.Errorf("ci cgroups: %+v", c)
	}
	u := Probe(ubuntu(false)).Cgroups
	if u.Version != "v2" || u.Memory.Version != "v2" || u.Memory.Delegated || !strings.Contains(u.Memory.Reason, "EACCES") {
		t.Errorf("ubuntu cgroups: %+v", u)
	}
	n := Probe(Sources{}).Cgroups
	if n.Version != "none" || n.Memory.Delegated || n.Memory.Reason == "" {
		t.Errorf("no cgroups: %+v", n)
	}
}

func TestFeatures(t *testing.T) {
	ci, old := Probe(ciHost()), Probe(oldKernel())
	tests := []struct {
		r       Report
		backend string
		feature string
		want    Level
	}{
		{ci, "linux", FeatProtected, Full},
		{ci, "linux", FeatHostUnix, Full},
		{ci, "linux", FeatLimits, Full},
		{ci, "bwrap", FeatProtected, Full},       // missing ones held by the shim's guard
		{ci, "landlock", FeatProtected, Partial}, // held by the seccomp guard; deletions are not refused
		{ci, "bwrap", FeatHostUnix, Full},
		{old, "bwrap", FeatHostUnix, None},
		{ci, "bwrap", FeatNetworkDeny, Partial},
		{ci, "bwrap", FeatTreeKill, Full},
		{ci, "landlock", FeatProcesses, None},
		{ci, "landlock", FeatSignals, Full},
		{ci, "landlock", FeatTreeKill, Partial},
		{old, "linux", FeatFileWrite, None}, // no user namespaces: nothing
		{old, "landlock", FeatFileWrite, None},
		{old, "none", FeatFileWrite, None},
		{Probe(ubuntu(false)), "landlock", FeatLimits, Partial},
	}
	for _, tt := range tests {
		var got *Feature
		fs := Features(tt.r, tt.backend)
		if len(fs) != len(featureOrder) {
			t.Fatalf("%s: %d features, want %d", tt.backend, len(fs), len(featureOrder))
		}
		for i := range fs {
			if fs[i].Name == tt.feature {
				got = &fs[i]
			}
			if fs[i].Reason == "" {
				t.Errorf("%s %s has no reason", tt.backend, fs[i].Name)
			}
		}
		if got == nil || got.Level != tt.want {
			t.Errorf("%s on %s: %s = %+v, want %s", tt.backend, tt.r.Kernel, tt.feature, got, tt.want)
		}
	}
}
