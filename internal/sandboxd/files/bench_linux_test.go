//go:build linux

package files

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkPutGet is one 4 KiB PUT and its GET over loopback HTTP, through
// the fence (atomic write with fsyncs, then a streamed read).
func BenchmarkPutGet(b *testing.B) {
	f := newFix(b, nil)
	body := strings.Repeat("x", 4<<10)
	for b.Loop() {
		if r := f.put(b, "/v1/files/bench/file.txt", body); r.status != http.StatusNoContent {
			b.Fatal(r.status)
		}
		if r := f.do(b, http.MethodGet, "/v1/files/bench/file.txt", nil); r.status != http.StatusOK || len(r.body) != len(body) {
			b.Fatal(r.status)
		}
	}
}

// BenchmarkList lists a directory of 1,000 files.
func BenchmarkList(b *testing.B) {
	f := newFix(b, nil)
	for i := range 1000 {
		writeFile(b, f.root+"/many/"+"f"+strconv.Itoa(i), "x")
	}
	for b.Loop() {
		if r := f.do(b, http.MethodGet, "/v1/files/many", nil); r.status != http.StatusOK {
			b.Fatal(r.status)
		}
	}
}
