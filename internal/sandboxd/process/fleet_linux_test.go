package process

import (
	"slices"
	"sync"
	"testing"
	"time"
)

// TestFleetFourServers: four servers on loopback (each its own sandbox
// and session, as four pods would be), 32 clients each, Execute and Start
// with stdin, every result checked; p50/p99 per call across the fleet.
// Bounded (4 × 32 × 2 rounds) so that it runs in CI on two cores.
func TestFleetFourServers(t *testing.T) {
	const servers, clients, rounds = 4, 32, 2
	var hs []*harness
	for range servers {
		hs = append(hs, newHarness(t))
	}
	var mu sync.Mutex
	lat := map[string][]time.Duration{}
	record := func(k string, d time.Duration) { mu.Lock(); lat[k] = append(lat[k], d); mu.Unlock() }
	var wg sync.WaitGroup
	errs := make(chan error, servers*clients*rounds)
	begin := time.Now()
	for sv, h := range hs {
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range rounds {
					if err := loadRound(h, sv*1000+c, i, record); err != nil {
						errs <- err
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	calls := 0
	for k, d := range lat {
		calls += len(d)
		slices.Sort(d)
		t.Logf("fleet %dx%d %-34s n=%4d p50 %7.2f ms  p99 %7.2f ms", servers, clients, k, len(d), ms(d[len(d)/2]), ms(d[len(d)*99/100]))
	}
	t.Logf("fleet: %d calls in %v (%.0f calls/s)", calls, time.Since(begin).Round(time.Millisecond), float64(calls)/time.Since(begin).Seconds())
	if calls != servers*clients*rounds*2 {
		t.Fatalf("%d calls recorded, want %d", calls, servers*clients*rounds*2)
	}
}
