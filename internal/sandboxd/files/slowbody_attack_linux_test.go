//go:build linux

package files

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stalledPut opens a connection, sends a PUT announcing 1 MiB, sends 10
// bytes of it and then nothing; it reports whether an answer (or the
// connection's end) came within wait. during, if set, runs once the
// bytes are sent, while the connection is still open.
func stalledPut(t *testing.T, f fix, name string, wait time.Duration, during func()) (answered bool, status string) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(f.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Write([]byte("PUT /v1/files/" + name + " HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	if during != nil {
		during()
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	line, err := bufio.NewReader(c).ReadString('\n')
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false, ""
	}
	return true, strings.TrimSpace(line)
}

// TestAttackStalledUpload: a client that starts an upload and stops
// sending held its connection, the directory and a temp file open for
// good (a few hundred such uploads exhaust the server's descriptors). The
// control (an idle bound of an hour) is still waiting after a second; with
// the bound the upload is cut, answered, and its temp file removed.
func TestAttackStalledUpload(t *testing.T) {
	ctl := newFix(t, func(o *Options) { o.UploadIdle = time.Hour })
	held := false
	answered, _ := stalledPut(t, ctl, "held", time.Second, func() {
		// The handler holds a temp file while it waits (a loaded machine
		// may take a while to get there).
		for deadline := time.Now().Add(5 * time.Second); !held && time.Now().Before(deadline); {
			held = tempLeft(ctl)
			time.Sleep(10 * time.Millisecond)
		}
	})
	if answered || !held {
		t.Fatalf("control: the stalled upload was answered (%v) or held no temp file (%v) without an idle bound", answered, held)
	}

	f := newFix(t, func(o *Options) { o.UploadIdle = 200 * time.Millisecond })
	start := time.Now()
	answered, status := stalledPut(t, f, "cut", 5*time.Second, nil)
	if !answered {
		t.Fatal("the stalled upload was still held after 5s")
	}
	t.Logf("cut after %v: %q", time.Since(start).Round(time.Millisecond), status)
	deadline := time.Now().Add(2 * time.Second)
	for tempLeft(f) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	f.checkNoTemp(t)
	if _, err := os.Lstat(filepath.Join(f.root, "cut")); err == nil {
		t.Error("a cut upload left a file")
	}
	// A slow upload that keeps sending is not cut: each read moves the bound.
	pr, pw := newSlowBody(20, 50*time.Millisecond) // 1 s in all, 5× the bound
	req, _ := http.NewRequest(http.MethodPut, f.srv.URL+"/v1/files/slow", pr)
	go pw()
	resp, err := f.srv.Client().Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("a slow, moving upload: %v %v", resp, err)
	}
	resp.Body.Close()
	// The connection that was cut is not reused with a stale deadline: the
	// next calls on the server work.
	if r := f.put(t, "/v1/files/after", "x"); r.status != http.StatusNoContent {
		t.Fatalf("after: %d %s", r.status, r.body)
	}
}

func tempLeft(f fix) bool {
	left := false
	_ = filepath.Walk(f.base, func(p string, _ os.FileInfo, _ error) error {
		if strings.Contains(filepath.Base(p), ".ringfence-") {
			left = true
		}
		return nil
	})
	return left
}

// newSlowBody yields n bytes, one every gap.
func newSlowBody(n int, gap time.Duration) (*os.File, func()) {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	return r, func() {
		for i := 0; i < n; i++ {
			time.Sleep(gap)
			_, _ = w.Write([]byte{'x'})
		}
		w.Close()
	}
}
