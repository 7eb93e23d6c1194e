package seccomp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func init() { helpers["createloop"] = helperCreateLoop }

// helperCreateLoop times open(O_CREAT)+close+unlink in its own process,
// laid out as the init is: the filter on this (locked) thread only, the
// supervisor on the others, so each create takes one notification.
func helperCreateLoop() int {
	n, _ := strconv.Atoi(os.Getenv(loopsEnv))
	path := os.Getenv(dirEnv) + "/f"
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	runtime.LockOSThread() // never unlocked: the filtered thread dies with us
	var opts *Options
	switch os.Getenv(filterEnv) {
	case "plain":
		opts = &Options{}
	case "guard":
		opts = &Options{GuardCreate: true}
	}
	if opts != nil {
		l, err := buildInstall(*opts, ThisThread)
		if err != nil {
			fmt.Println("install=" + err.Error())
			return 1
		}
		if l != nil {
			prot := Protect{os.Getenv(dirEnv) + "/.bashrc"}
			go func() { _ = Supervise(context.Background(), l, prot.Rules(nil)) }()
		}
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		fd, err := unix.Open(path, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		if err != nil {
			fmt.Println("open=" + err.Error())
			return 1
		}
		unix.Close(fd)
		if err := unix.Unlink(path); err != nil {
			return 1
		}
	}
	fmt.Printf("ns=%d\n", time.Since(start).Nanoseconds()/int64(max(n, 1)))
	return 0
}

// BenchmarkGuardedCreate reports what GuardCreate adds to creating a file
// (ns/create: open O_CREAT, close, unlink), against the same loop with the
// plain filter and with none. It works on tmpfs (/dev/shm) where there is
// one, so the disk's journal does not drown the figure.
func BenchmarkGuardedCreate(b *testing.B) {
	dir, err := os.MkdirTemp("/dev/shm", "ringfence-bench-")
	if err != nil {
		dir = b.TempDir()
	} else {
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	for _, filter := range []string{"none", "plain", "guard"} {
		b.Run("filter="+filter, func(b *testing.B) {
			out, ps := spawnB(b, "createloop", dirEnv+"="+dir, filterEnv+"="+filter, loopsEnv+"="+strconv.Itoa(b.N))
			ns, err := strconv.Atoi(results(out)["ns"])
			if !ps.Success() || err != nil {
				b.Fatalf("helper: %v %q", ps, out)
			}
			b.ReportMetric(float64(ns), "ns/create")
		})
	}
}
