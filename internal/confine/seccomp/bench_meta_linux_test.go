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

func init() { helpers["sendmsgloop"] = helperSendmsgLoop }

// helperSendmsgLoop times sendmsg of 64 bytes over a connected datagram
// socketpair (no destination: the common case supervision must answer
// quickly). With the "unix" filter it installs the filter on its locked
// thread only and supervises from the others, as the sandbox init does,
// so each sendmsg takes exactly one notification round trip.
func helperSendmsgLoop() int {
	n, _ := strconv.Atoi(os.Getenv(loopsEnv))
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	if os.Getenv(filterEnv) == "unix" {
		runtime.LockOSThread() // never unlocked: the filtered thread dies with us
		l, err := buildInstall(Options{DenyUnixConnect: true}, ThisThread)
		if err != nil || l == nil {
			fmt.Printf("install=%v\n", err)
			return 1
		}
		go func() { _ = SuperviseUnix(context.Background(), l, func(string) bool { return true }) }()
	}
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 1
	}
	go func() {
		buf := make([]byte, 64)
		for {
			if _, err := unix.Read(p[1], buf); err != nil {
				return
			}
		}
	}()
	msg := make([]byte, 64)
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := unix.Sendmsg(p[0], msg, nil, nil, 0); err != nil {
			fmt.Println("sendmsg=" + err.Error())
			return 1
		}
	}
	fmt.Printf("ns=%d\n", time.Since(start).Nanoseconds()/int64(max(n, 1)))
	return 0
}

// BenchmarkSendmsg reports what supervision adds to one sendmsg without a
// destination (ns/sendmsg), against the same loop unfiltered.
func BenchmarkSendmsg(b *testing.B) {
	for _, filter := range []string{"none", "unix"} {
		b.Run("filter="+filter, func(b *testing.B) {
			out, ps := spawnB(b, "sendmsgloop", filterEnv+"="+filter, loopsEnv+"="+strconv.Itoa(b.N))
			ns, err := strconv.Atoi(results(out)["ns"])
			if !ps.Success() || err != nil {
				b.Fatalf("helper: %v %q", ps, out)
			}
			b.ReportMetric(float64(ns), "ns/sendmsg")
		})
	}
}
