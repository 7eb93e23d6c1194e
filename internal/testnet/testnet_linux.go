// Package testnet is the "test internet" the domains network's tests
// reach instead of the real one: network namespaces the test makes itself,
// joined by a veth pair, with hosts on 198.51.100.0/24 serving HTTP,
// HTTPS (a test CA), a TCP echo and an SSH-like banner, and names answered
// by an injected resolver. Nothing touches the host's own network. Shared
// by the backends' tests (the linux backend's tests carry the same helper
// as unexported code; this is its exported form).
package testnet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/testenv"
)

// Internet is a "test internet" the test makes itself: a network
// namespace holding the hosts (198.51.100.10-12, public as far as the
// proxy knows) joined by a veth pair to a second namespace, "egress",
// from which the proxy's injected Dial connects. Names come from an
// injected resolver. Nothing touches the host's own network.
//
//	pkg.test, other.test   → 198.51.100.10 (HTTP :80, HTTPS :443, echo :9418, git over HTTPS)
//	evil.test              → 198.51.100.12 (the same servers: reachable, but not allowed)
//	meta.test              → 169.254.169.254, lo.test → 127.0.0.1, ten.test → 10.0.0.1
//	rebind.test            → 198.51.100.10 first, 127.0.0.1 after
type Internet struct {
	inet, egress string // namespace names
	mux          *http.ServeMux
	CAFile       string // PEM of the test CA, readable inside the sandbox
	mu           sync.Mutex
	names        map[string][]string
	dialled      []string
}

var netSeq int

func New(t *testing.T, caDir string) *Internet {
	t.Helper()
	testenv.NeedRoot(t)
	if _, err := exec.LookPath("ip"); err != nil {
		testenv.Need(t, "iproute2 (ip)", err)
	}
	netSeq++
	id := fmt.Sprintf("%d%d", os.Getpid()%100000, netSeq)
	tn := &Internet{inet: "rfinet" + id, egress: "rfegr" + id, names: map[string][]string{
		"pkg.test": {"198.51.100.10"}, "other.test": {"198.51.100.10"}, "evil.test": {"198.51.100.12"},
		"meta.test": {"169.254.169.254"}, "lo.test": {"127.0.0.1"}, "ten.test": {"10.0.0.1"},
		"rebind.test": {"198.51.100.10", "127.0.0.1"}, "v6lo.test": {"::1"},
	}}
	ve, vi := "rfe"+id, "rfi"+id
	steps := [][]string{
		{"netns", "add", tn.inet}, {"netns", "add", tn.egress},
		{"link", "add", ve, "type", "veth", "peer", "name", vi},
		{"link", "set", ve, "netns", tn.egress}, {"link", "set", vi, "netns", tn.inet},
		{"-n", tn.inet, "addr", "add", "198.51.100.10/24", "dev", vi},
		{"-n", tn.inet, "addr", "add", "198.51.100.12/24", "dev", vi},
		{"-n", tn.inet, "link", "set", vi, "up"}, {"-n", tn.inet, "link", "set", "lo", "up"},
		{"-n", tn.egress, "addr", "add", "198.51.100.1/24", "dev", ve},
		{"-n", tn.egress, "link", "set", ve, "up"}, {"-n", tn.egress, "link", "set", "lo", "up"},
	}
	t.Cleanup(func() {
		exec.Command("ip", "netns", "del", tn.inet).Run()
		exec.Command("ip", "netns", "del", tn.egress).Run()
	})
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v\n%s", s, err, out)
		}
	}
	cert, caPEM := testCerts(t)
	tn.CAFile = filepath.Join(caDir, "test-ca.pem")
	if err := os.WriteFile(tn.CAFile, caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	repo := gitRepo(t)
	mux := http.NewServeMux()
	tn.mux = mux
	mux.Handle("/repo.git/", http.StripPrefix("/repo.git/", http.FileServer(http.Dir(repo))))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "hello from %s", r.Host) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n := 64 << 20
		fmt.Sscan(r.URL.Query().Get("n"), &n)
		w.Header().Set("Content-Length", fmt.Sprint(n))
		buf := make([]byte, 256<<10)
		for n > 0 {
			k := min(n, len(buf))
			if _, err := w.Write(buf[:k]); err != nil {
				return
			}
			n -= k
		}
	})
	for _, ip := range []string{"198.51.100.10", "198.51.100.12"} {
		plain := tn.Listen(t, ip+":80")
		secure := tls.NewListener(tn.Listen(t, ip+":443"), &tls.Config{Certificates: []tls.Certificate{cert}})
		echo := tn.Listen(t, ip+":9418")
		srv := &http.Server{Handler: mux}
		go srv.Serve(plain)
		go (&http.Server{Handler: mux}).Serve(secure)
		go serveEcho(echo)
		banner := tn.Listen(t, ip+":22")
		go serveBanner(banner)
		t.Cleanup(func() { plain.Close(); secure.Close(); echo.Close(); banner.Close() })
	}
	return tn
}

// InNS runs f on a thread moved into namespace ns, then moves the thread
// back. A thread must not simply exit here: the runtime may have started a
// sandbox init from it, and its exit would fire that init's parent-death
// signal. Only if the way back fails is the thread left locked (and so
// discarded).
func InNS(ns string, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		self, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer unix.Close(self)
		fd, err := unix.Open("/run/netns/"+ns, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		err = f()
		if unix.Setns(self, unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		errc <- err
	}()
	return <-errc
}

func (tn *Internet) Listen(t *testing.T, addr string) net.Listener {
	t.Helper()
	var l net.Listener
	err := InNS(tn.inet, func() (err error) { l, err = net.Listen("tcp", addr); return })
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (tn *Internet) ListenUDP(t *testing.T, addr string) net.PacketConn {
	t.Helper()
	var c net.PacketConn
	err := InNS(tn.inet, func() (err error) { c, err = net.ListenPacket("udp", addr); return })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// LookupNetIP is the injected resolver: each name's next answer (the last
// one repeats), so rebind.test answers public first and loopback after.
func (tn *Internet) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	ans := tn.names[host]
	if len(ans) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	a := ans[0]
	if len(ans) > 1 {
		tn.names[host] = ans[1:]
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// Dial connects from the egress namespace: the only way to the hosts.
func (tn *Internet) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	tn.mu.Lock()
	tn.dialled = append(tn.dialled, addr)
	tn.mu.Unlock()
	var c net.Conn
	err := InNS(tn.egress, func() (err error) {
		d := net.Dialer{Timeout: 5 * time.Second}
		c, err = d.DialContext(ctx, network, addr)
		return
	})
	return c, err
}

// Dialled is every address the proxy dialled.
func (tn *Internet) Dialled() []string {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	return append([]string(nil), tn.dialled...)
}

func serveEcho(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() { defer c.Close(); io.Copy(c, c) }()
	}
}

// testCerts makes a CA and a leaf for the test names.
func testCerts(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ringfence test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "pkg.test"},
		DNSNames:  []string{"pkg.test", "other.test", "evil.test", "rebind.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
}

// gitRepo is a bare repository with one commit, ready for dumb HTTP.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Need(t, "git", err)
	}
	dir := t.TempDir()
	work, bare := filepath.Join(dir, "work"), filepath.Join(dir, "repo.git")
	env := append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_GLOBAL=/dev/null")
	for _, c := range [][]string{
		{"git", "init", "-q", "-b", "main", work},
		{"sh", "-c", "echo fetched-through-the-proxy > " + work + "/README"},
		{"git", "-C", work, "add", "README"}, {"git", "-C", work, "commit", "-qm", "one"},
		{"git", "clone", "-q", "--bare", work, bare}, {"git", "-C", bare, "update-server-info"},
	} {
		cmd := exec.Command(c[0], c[1:]...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", c, err, out)
		}
	}
	return bare
}

// CAVars point every client at the test CA.
func CAVars(file string) []string {
	return []string{"SSL_CERT_FILE=" + file, "CURL_CA_BUNDLE=" + file, "NODE_EXTRA_CA_CERTS=" + file, "GIT_SSL_CAINFO=" + file,
		"REQUESTS_CA_BUNDLE=" + file}
}

// Handle adds a handler to every test host's HTTP and HTTPS servers.
func (tn *Internet) Handle(pattern string, h http.Handler) { tn.mux.Handle(pattern, h) }

// serveBanner speaks first, as an SSH server does, then echoes.
func serveBanner(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() { defer c.Close(); io.WriteString(c, "SSH-2.0-testinternet\r\n"); io.Copy(c, c) }()
	}
}

// Egress is the namespace the proxy dials from, joined to the hosts by the
// veth pair: a process started there reaches the test hosts directly (the
// unconfined controls of a backend that shares its caller's network).
func (tn *Internet) Egress() string { return tn.egress }
