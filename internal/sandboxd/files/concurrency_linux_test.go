//go:build linux

package files

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestConcurrentWritesAreAtomic holds the guide's concurrency promises:
// readers see a whole old or whole new file, never a torn one, while
// writers replace it and deleters remove it; the last operation wins.
func TestConcurrentWritesAreAtomic(t *testing.T) {
	f := newFix(t, nil)
	bodies := []string{strings.Repeat("a", 256<<10), strings.Repeat("b", 256<<10)}
	if r := f.put(t, "/v1/files/shared.bin", bodies[0]); r.status != http.StatusNoContent {
		t.Fatal(r.status)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 20; n++ {
				r := f.put(t, "/v1/files/shared.bin", bodies[(i+n)%2])
				if r.status != http.StatusNoContent {
					t.Errorf("PUT: %d %s", r.status, r.body)
				}
				if i == 2 && n%5 == 0 {
					f.do(t, http.MethodDelete, "/v1/files/shared.bin", nil)
				}
			}
		}()
	}
	var reads atomic.Int64
	var rwg sync.WaitGroup
	for range 3 {
		rwg.Add(1)
		go func() {
			defer rwg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := f.do(t, http.MethodGet, "/v1/files/shared.bin", nil)
				switch r.status {
				case http.StatusNotFound:
				case http.StatusOK:
					if len(r.body) != 256<<10 || (bytes.Count(r.body, r.body[:1]) != len(r.body)) {
						t.Errorf("torn read: %d bytes", len(r.body))
					}
					reads.Add(1)
				default:
					t.Errorf("GET: %d %s", r.status, r.body)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rwg.Wait()
	f.checkNoTemp(t)
	t.Logf("%d whole reads during 60 writes and deletes", reads.Load())
}
