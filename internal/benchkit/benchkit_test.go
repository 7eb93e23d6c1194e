package benchkit

import (
	"errors"
	"os"
	"testing"
	"time"
)

func TestMeasure(t *testing.T) {
	calls := 0
	d, err := Measure(20, func() error { calls++; return nil })
	if err != nil || calls != 22 || d[0] > d[1] {
		t.Fatalf("d %v err %v calls %d (want 2 warm-up + 20)", d, err, calls)
	}
	if _, err := Measure(0, func() error { return nil }); err != nil {
		t.Fatalf("n=0: %v", err)
	}
	boom := errors.New("boom")
	calls = 0
	if _, err := Measure(100, func() error { calls++; return boom }); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
	slow := 0
	d, _ = Measure(100, func() error {
		slow++
		if slow > 10 && slow%50 == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	})
	if d[1] < time.Millisecond || d[0] >= time.Millisecond {
		t.Fatalf("p50 %v p99 %v: the tail must show in p99 only", d[0], d[1])
	}
}

func TestWorkspace(t *testing.T) {
	root, cleanup, err := Workspace("benchkit")
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		t.Fatalf("%s: %v", root, err)
	}
	cleanup()
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("not removed: %v", err)
	}
}
