package seccomp

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

const loopsEnv = "RINGFENCE_SECCOMP_LOOPS"

func init() { helpers["connectloop"] = helperConnectLoop }

// helperConnectLoop times unix-socket connects in its own process; with
// the "unix" filter, it supervises itself (every thread filtered), so each
// connect takes the whole notification path.
func helperConnectLoop() int {
	n, _ := strconv.Atoi(os.Getenv(loopsEnv))
	path := os.Getenv(dirEnv) + "/okay/s.sock"
	l, err := installFromEnv()
	if err != nil {
		fmt.Println("install=" + err.Error())
		return 1
	}
	if l != nil {
		go func() { _ = SuperviseUnix(context.Background(), l, func(string) bool { return true }) }()
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return 1
		}
		err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
		unix.Close(fd)
		if err != nil {
			fmt.Println("connect=" + err.Error())
			return 1
		}
	}
	fmt.Printf("ns=%d\n", time.Since(start).Nanoseconds()/int64(max(n, 1)))
	return 0
}

// BenchmarkConnect reports what supervision adds to one unix connect
// (ns/connect), against the same loop unfiltered.
func BenchmarkConnect(b *testing.B) {
	dir := b.TempDir()
	if err := os.Mkdir(dir+"/okay", 0o755); err != nil {
		b.Fatal(err)
	}
	l, err := net.Listen("unix", dir+"/okay/s.sock")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, filter := range []string{"none", "unix"} {
		b.Run("filter="+filter, func(b *testing.B) {
			out, ps := spawnB(b, "connectloop", dirEnv+"="+dir, filterEnv+"="+filter, loopsEnv+"="+strconv.Itoa(b.N))
			ns, err := strconv.Atoi(results(out)["ns"])
			if !ps.Success() || err != nil {
				b.Fatalf("helper: %v %q", ps, out)
			}
			b.ReportMetric(float64(ns), "ns/connect")
		})
	}
}
