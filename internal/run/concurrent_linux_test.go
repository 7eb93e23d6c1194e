package run

import (
	"context"
	"sync"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// Concurrent runs under v1 cgroups. An ungated runner is born inside its
// group because the forking thread visits it, and the Go runtime may clone
// new threads from that thread meanwhile. Were any of ours left there,
// ending that command's tree would SIGKILL this very process: the whole
// test binary would die here. Every run ends with its tree killed (a
// background sleep keeps the group populated).
func TestConcurrentRunsNeverKillTheSupervisor(t *testing.T) {
	testenv.NeedRoot(t)
	if c := Probe(); c.Resources != ResourcesQuota {
		testenv.Need(t, "cgroup quota", errNoQuota)
	}
	t.Run("ungated", func(t *testing.T) { concurrentRuns(t, Options{}) })
	t.Run("reaper-with-limits", func(t *testing.T) {
		concurrentRuns(t, Options{Reaper: true, Limits: policy.Limits{Processes: 16}})
	})
}

func concurrentRuns(t *testing.T, o Options) {
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 12; i++ {
				res, err := Run(context.Background(), shCmd("sleep 30 & echo ok"), o)
				if err != nil {
					t.Error(err)
					return
				}
				if string(res.Stdout) != "ok\n" {
					t.Errorf("stdout %q", res.Stdout)
				}
			}
		}()
	}
	wg.Wait()
}

type noQuota struct{}

func (noQuota) Error() string { return "this host delegates no cgroup to ringfence" }

var errNoQuota error = noQuota{}
