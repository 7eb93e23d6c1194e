package serveproc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAddrs(t *testing.T) {
	g, r, ok := Addrs("x\nringfence serve: ProcessService on 127.0.0.1:9090 (gRPC), REST on 127.0.0.1:8080; root /w\n")
	if !ok || g != "127.0.0.1:9090" || r != "127.0.0.1:8080" {
		t.Fatalf("got %q %q %v", g, r, ok)
	}
	if _, _, ok := Addrs("ProcessService on 127.0.0.1:9090 (gRPC)"); ok {
		t.Fatal("half a line read as an address")
	}
}

// fake writes a stand-in for the ringfence binary: script is its body.
func fake(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ringfence")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+script+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

const listen = `echo "ringfence serve: ProcessService on 127.0.0.1:1 (gRPC), REST on 127.0.0.1:2; args $*" >&2`

func TestStartStop(t *testing.T) {
	p, err := Start(Options{Binary: fake(t, "trap 'exit 0' TERM\n"+listen+"\nwhile :; do sleep 0.05; done"), Args: []string{"--root-dir", "/r"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.GRPC != "127.0.0.1:1" || p.REST != "127.0.0.1:2" || !strings.Contains(p.Log(), "args serve --root-dir /r") {
		t.Fatalf("got %q %q, log %q", p.GRPC, p.REST, p.Log())
	}
	if err := p.Stop(10 * time.Second); err != nil {
		t.Fatalf("a graceful stop: %v", err)
	}
	if err := p.Stop(time.Second); err != nil {
		t.Fatalf("a second Stop: %v", err)
	}
	select {
	case <-p.Exited():
	default:
		t.Fatal("Exited not closed after Stop")
	}
}

func TestStopKillsTheStubborn(t *testing.T) {
	p, err := Start(Options{Binary: fake(t, "trap '' TERM\n"+listen+"\nwhile :; do sleep 0.05; done")})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(300 * time.Millisecond); !errors.Is(err, ErrKilled) {
		t.Fatalf("a server ignoring SIGTERM: %v", err)
	}
}

func TestStartFails(t *testing.T) {
	if _, err := Start(Options{Binary: fake(t, `echo "no such flag" >&2; exit 2`)}); err == nil || !strings.Contains(err.Error(), "no such flag") {
		t.Fatalf("a server that exits: %v", err)
	}
	if _, err := Start(Options{Binary: fake(t, "exec sleep 30"), StartTimeout: 200 * time.Millisecond}); err == nil {
		t.Fatal("a server that never listens")
	}
}

func TestEnviron(t *testing.T) {
	got := Environ([]string{"HOME=/h", "PATH=/bin", "XDG_CONFIG_HOME=/c", "TMPDIR=/t", "A=1"}, "HOME=/mine")
	if strings.Join(got, " ") != "PATH=/bin A=1 HOME=/mine" {
		t.Fatalf("got %v", got)
	}
}
