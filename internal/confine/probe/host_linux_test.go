package probe

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
)

// TestHost checks the real probe against this host. CI's host (and this
// development machine) has every feature, so under RINGFENCE_REQUIRE_ALL=1
// the report must say so and auto must pick linux.
func TestHost(t *testing.T) {
	r := Host()
	t.Log("\n" + r.Text())
	if r.Kernel == "" || r.Arch == "" || r.Cgroups.Version == "" {
		t.Fatalf("incomplete report: %+v", r)
	}
	testenv.Need(t, "user namespaces", errIf(!r.UserNS.Available, r.UserNS.Reasons))
	testenv.Need(t, "landlock", errIf(r.Landlock.ABI < 1, []string{r.Landlock.Reason}))
	testenv.Need(t, "seccomp", errIf(!r.Seccomp.Available, []string{r.Seccomp.Reason}))
	testenv.Need(t, "bwrap", errIf(!r.Bwrap.Usable, []string{r.Bwrap.Reason}))
	if r.Auto != "linux" {
		t.Errorf("auto = %s with user namespaces available", r.Auto)
	}
	if os.Geteuid() == 0 && !(r.Cgroups.Memory.Delegated && r.Cgroups.Pids.Delegated) {
		t.Errorf("root cannot create memory/pids groups: %+v", r.Cgroups)
	}
}

// TestTrialsLeaveNothing: the cgroup trial removes its group.
func TestTrialsLeaveNothing(t *testing.T) {
	dir := t.TempDir()
	if err := tryCgroup(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("trial left %v behind", entries)
	}
}

func errIf(bad bool, reasons []string) error {
	if !bad {
		return nil
	}
	return errors.New(joinOr(reasons, "no reason given"))
}

// TestUserNSTrialNeedsNoProgram: with nothing on PATH (a scratch image),
// the user namespace trial still runs and says yes on this host; before,
// it reported "true(1) is not on PATH" and auto fell to a weaker backend.
func TestUserNSTrialNeedsNoProgram(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := tryUserNS()
	testenv.Need(t, "user namespaces", err)
}

func TestUserNSVerdict(t *testing.T) {
	if userNSVerdict(syscall.ENAMETOOLONG) != nil || userNSVerdict(nil) != nil {
		t.Error("the trial's expected execve failure is not read as success")
	}
	for _, e := range []error{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS, syscall.ENOSYS, errors.New("other")} {
		if userNSVerdict(e) == nil {
			t.Errorf("%v read as success", e)
		}
	}
	if got := userNSVerdict(syscall.EPERM).Error(); !strings.Contains(got, "EPERM") {
		t.Errorf("refusal not named: %q", got)
	}
}
