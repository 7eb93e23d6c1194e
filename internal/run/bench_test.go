//go:build linux

package run

import (
	"context"
	"io"
	"os/exec"
	"strconv"
	"testing"

	"github.com/ringfence/ringfence/internal/confine"
)

// benchBytes is what each benchmark iteration streams.
const benchBytes = 256 << 20

var benchScript = "dd if=/dev/zero bs=1048576 count=" + strconv.Itoa(benchBytes>>20) + " status=none"

// BenchmarkThroughput measures the cost of supervision: the same output
// through Run (1 MiB ceiling, kept running past it, live pass-through to
// io.Discard) and through a bare os/exec pipe. Compare the MB/s figures.
func BenchmarkThroughput(b *testing.B) {
	b.Run("run", func(b *testing.B) {
		b.SetBytes(benchBytes)
		c := &confine.Cmd{Path: "/bin/sh", Args: []string{"sh", "-c", benchScript}, Env: []string{"PATH=/usr/bin:/bin"}, TreeKill: confine.KillProcessGroup}
		for b.Loop() {
			r, err := Run(context.Background(), c, Options{KeepRunningPastCeiling: true, Stdout: io.Discard})
			if err != nil || r.Truncated == nil || r.Truncated.Stdout != benchBytes {
				b.Fatalf("run: %v %+v", err, r)
			}
		}
	})
	b.Run("bare", func(b *testing.B) {
		b.SetBytes(benchBytes)
		for b.Loop() {
			cmd := exec.Command("/bin/sh", "-c", benchScript)
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			n := readAll(out) // the same 64 KiB reads as the supervisor's drain
			if err := cmd.Wait(); err != nil || n != benchBytes {
				b.Fatalf("bare: %v %d", err, n)
			}
		}
	})
}

// BenchmarkStartup is the fixed cost of one supervised `true` (which
// includes making and removing its cgroup, where there is one) against a
// bare exec of it.
func BenchmarkStartup(b *testing.B) {
	b.Run("run", func(b *testing.B) {
		c := &confine.Cmd{Path: "/bin/true", Args: []string{"true"}, TreeKill: confine.KillProcessGroup}
		for b.Loop() {
			if _, err := Run(context.Background(), c, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func readAll(r io.Reader) int64 {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		k, err := r.Read(buf)
		n += int64(k)
		if err != nil {
			return n
		}
	}
}
