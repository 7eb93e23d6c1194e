package initimage_test

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/confine/landlock"
	"github.com/ringfence/ringfence/internal/confine/linux"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

type backend struct {
	name string
	new  func() confine.Provider
	gaps map[string]string // the backend's own TestAttacks passes the same
}

// The backends whose init is the carried one. This package's TestMain sets
// RINGFENCE_INIT=embedded, so every run here executes the blob a
// program ships, even where the sources changed since it was generated
// (other packages' tests then run the test binary as their init).
var backends = []backend{
	{"linux", func() confine.Provider { return linux.New(linux.Options{}) }, map[string]string{}},
	{"landlock", func() confine.Provider { return &landlock.Provider{} }, inittest.LandlockGaps},
}

// confineInWorkspace confines argv with b's provider under a
// workspace-write policy over a new temporary directory, or skips (failing
// under RINGFENCE_REQUIRE_ALL) where b does not run.
func confineInWorkspace(t *testing.T, b backend, argv, env []string) *confine.Cmd {
	t.Helper()
	prov := b.new()
	testenv.Need(t, b.name+" backend", prov.Available())
	ws := t.TempDir()
	p := &policy.Policy{Mode: policy.WorkspaceWrite, Root: ws, Baseline: policy.Read,
		Layers: []policy.Layer{{Path: ws, Access: policy.Write, Origin: policy.FromMode}}}
	c, err := prov.Confine(confine.Request{Argv: argv, Policy: p, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The whole escape suite, each attack with its unconfined control, and the
// ordinary-work cases, run with the carried init on each backend.
func TestCarriedInitHoldsTheAttacks(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			inittest.RunSuite(t, inittest.ProviderConfiner(b.name, b.new), b.gaps)
		})
	}
}

func TestCarriedInitDoesOrdinaryWork(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { inittest.RunOrdinary(t, inittest.ProviderConfiner(b.name, b.new)) })
	}
}

// The init really is the carried one: seen from the host while the
// command runs, the init process of this run executes the sealed memfd,
// and the command holds no descriptor of it.
func TestRunsExecuteTheMemfd(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			c := confineInWorkspace(t, b, []string{"/bin/sh", "-c", "ls -l /proc/self/fd/; sleep 1"}, []string{"PATH=/usr/bin:/bin"})
			seen := map[string]bool{}
			var mu sync.Mutex
			done := make(chan struct{})
			go func() {
				for {
					select {
					case <-done:
						return
					case <-time.After(50 * time.Millisecond):
					}
					for _, exe := range ourDescendantsExe() {
						mu.Lock()
						seen[exe] = true
						mu.Unlock()
					}
				}
			}()
			res, err := inittest.Run(c, nil)
			close(done)
			if err != nil || res.Code != 0 {
				t.Fatalf("run: %v %+v", err, res)
			}
			if strings.Contains(res.Stdout, "memfd:") {
				t.Errorf("the command holds a memfd:\n%s", res.Stdout)
			}
			mu.Lock()
			defer mu.Unlock()
			var memfd bool
			for exe := range seen {
				if strings.HasPrefix(exe, "/memfd:ringfence-init") {
					memfd = true
				}
			}
			if !memfd {
				t.Fatalf("no descendant ran from the memfd (%s); executables seen: %v", initimage.Describe(), seen)
			}
		})
	}
}

// ourDescendantsExe lists the executables of this process's descendants.
func ourDescendantsExe() []string {
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if !descends(pid, self) {
			continue
		}
		if exe, err := os.Readlink("/proc/" + e.Name() + "/exe"); err == nil {
			out = append(out, exe)
		}
	}
	return out
}

func descends(pid, ancestor int) bool {
	for i := 0; i < 64 && pid > 1; i++ {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			return false
		}
		ppid, _ := strconv.Atoi(fields[1])
		if ppid == ancestor {
			return true
		}
		pid = ppid
	}
	return false
}

// The attacks and the ordinary work, run by an unprivileged user (uid
// 65534): agents often are not root, and the carried init must hold for
// them too. (TestRunsExecuteTheMemfd stays root's: an unprivileged
// observer cannot read a non-dumpable init's /proc/<pid>/exe.)
func TestCarriedInitAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestCarriedInitHoldsTheAttacks|TestCarriedInitDoesOrdinaryWork)$")
}
