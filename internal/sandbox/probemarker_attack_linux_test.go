package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAttackPlantedProbeMarker: a confined command whose workspace holds
// ringfence's cache directory (run in the home directory, or with
// XDG_CACHE_HOME inside the project) rewrites the linux backend's probe
// marker to claim this host refuses a fresh /proc. Before the fix every
// later sandbox of this boot trusted it and showed the host's /proc in its
// view (every host process, their command lines) — here it even left the
// init spinning. Now a marker that gives steps up is ignored and the probe
// decides. The control is the write itself: it really lands.
func TestAttackPlantedProbeMarker(t *testing.T) {
	root := hostDir(t)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(root, ".cache"))
	exec := func(script string) *ExecResult {
		t.Helper()
		l, err := New(Config{Root: root, Backend: "linux"})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		res, err := l.Exec(ctx, []string{"sh", "-c", script}, ExecOptions{Timeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// The first sandbox probes fully and leaves an (empty) marker; its
	// command then plants the lie in it.
	res := exec(`for f in .cache/ringfence/userns-ok-*; do printf '{"hostProc":true}' > "$f" && echo planted; done`)
	markers, _ := filepath.Glob(filepath.Join(root, ".cache", "ringfence", "userns-ok-*"))
	if len(markers) != 1 || !strings.Contains(res.Stdout, "planted") {
		t.Fatalf("control: the command could not plant the marker (markers %v): %+v", markers, res)
	}
	if b, _ := os.ReadFile(markers[0]); !strings.Contains(string(b), "hostProc") {
		t.Fatalf("control: the marker holds %q, not the planted claim", b)
	}
	// A new sandbox (a later ringfence process) must still give its
	// command a /proc of its own pid namespace.
	self := strconv.Itoa(os.Getpid())
	res = exec(`test -e /proc/` + self + ` && echo HOST-PROC; ls /proc | grep -c '^[0-9]'`)
	if res.TimedOut || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("the sandbox after the planted marker did not run: %+v", res)
	}
	if strings.Contains(res.Stdout, "HOST-PROC") {
		t.Fatalf("the planted marker put the host's /proc in the view: this test's pid %s is visible", self)
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(res.Stdout)); n == 0 || n > 10 {
		t.Fatalf("the view's /proc lists %q processes, want the few of its own pid namespace", res.Stdout)
	}
}
