package seccomp

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func init() { helpers["sendmsgloop"] = helperSendmsgLoop }

// helperSendmsgLoop times sendmsg of 64 bytes over a connected datagram
// socketpair (no destination: the common case supervision must answer
// quickly) and write(2) on the same pair; with the "unix" filter it
// supervises itself, so each sendmsg takes the whole notification path.
func helperSendmsgLoop() int {
	n, _ := strconv.Atoi(os.Getenv(loopsEnv))
	l, err := installFromEnv()
	if err != nil {
		fmt.Println("install=" + err.Error())
		return 1
	}
	if l != nil {
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
