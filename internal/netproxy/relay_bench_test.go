package netproxy

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchSize is what one benchmark iteration moves.
const benchSize = 256 << 20

// sourceServer writes benchSize bytes to every connection once the client
// has sent its first byte (as a TLS server answers a ClientHello), then
// closes it.
func sourceServer(b *testing.B) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	buf := make([]byte, 1<<20)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var one [1]byte
				if _, err := io.ReadFull(c, one[:]); err != nil {
					return
				}
				for n := benchSize; n > 0; n -= len(buf) {
					if _, err := c.Write(buf[:min(n, len(buf))]); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// cpuPerMB reports the process's CPU time (user and system: the server,
// the proxy and the client, all in this process) per MB moved: unlike
// MB/s, it holds still when other work shares the machine.
func cpuPerMB(b *testing.B) func() {
	before := cpuTime()
	return func() {
		mb := float64(b.N) * benchSize / 1e6
		b.ReportMetric(float64((cpuTime()-before).Microseconds())/mb, "cpu-µs/MB")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func drain(b *testing.B, c net.Conn) {
	n, err := io.CopyBuffer(io.Discard, c, make([]byte, 1<<20))
	if err != nil || n != benchSize {
		b.Fatalf("moved %d bytes: %v", n, err)
	}
}

// BenchmarkRelay compares a download straight from a server with the same
// download through a CONNECT tunnel of the proxy (one decision, the
// first-byte peek, then the relay), both over loopback in this process:
// the proxy's own cost, without a sandbox or a second namespace. Compare
// the MB/s of the two sub-benchmarks; -cpuprofile shows where the
// tunnel's time goes (it should be splice(2), no user-space copy).
func BenchmarkRelay(b *testing.B) {
	src := sourceServer(b)
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(benchSize)
		defer cpuPerMB(b)()
		for b.Loop() {
			c, err := net.Dial("tcp", src)
			if err != nil {
				b.Fatal(err)
			}
			c.Write([]byte{0x01})
			drain(b, c)
			c.Close()
		}
	})
	b.Run("tunnel", func(b *testing.B) {
		n := &testNet{names: map[string][]string{"pkg.test": {"198.51.100.10"}},
			servers: map[string]string{"198.51.100.10:9418": src}}
		allow, err := ParseRules([]string{"pkg.test"}, true)
		if err != nil {
			b.Fatal(err)
		}
		p := &Proxy{Rules: Rules{Allow: allow}, Resolver: n, Dial: n.Dial}
		l, err := net.Listen("tcp", "127.0.0.1:0")
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
				go p.ServeHTTP(context.Background(), c)
			}
		}()
		b.SetBytes(benchSize)
		defer cpuPerMB(b)()
		for b.Loop() {
			c, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			c.Write([]byte("CONNECT pkg.test:9418 HTTP/1.1\r\nHost: pkg.test:9418\r\n\r\n"))
			br := bufio.NewReader(c)
			line, err := br.ReadString('\n')
			if err != nil || !strings.Contains(line, " 200 ") {
				b.Fatalf("CONNECT: %q %v", line, err)
			}
			for line != "\r\n" {
				if line, err = br.ReadString('\n'); err != nil {
					b.Fatal(err)
				}
			}
			c.Write([]byte{0x01}) // neither a TLS record nor a method: relayed as is
			drain(b, c)
			c.Close()
		}
	})
}
