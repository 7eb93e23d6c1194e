//go:build linux

package domaintest

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
	"sync/atomic"
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
//	pkg.test, other.test   → 198.51.100.10 (HTTP :80, HTTPS :443, echo :9418, banner :22, git over HTTPS,
//	                         a Go module proxy under /mod/, an npm registry under /npm/)
//	evil.test              → 198.51.100.12 (the same servers: reachable, but not allowed)
//	meta.test              → 169.254.169.254, lo.test → 127.0.0.1, ten.test → 10.0.0.1, v6lo.test → ::1
//	rebind.test            → 198.51.100.10 first, 127.0.0.1 after
type Internet struct {
	inet, egress string // namespace names
	mux          *http.ServeMux
	CAFile       string // PEM of the test CA, readable inside the sandbox
	dir          string // its files: the CA, the git repository
	netns        bool   // namespaces to delete at Close

	mu      sync.Mutex
	names   map[string][]string
	dialled []string
	closers []io.Closer

	udpOnce sync.Once
	udpGot  atomic.Int64
	udpErr  error
}

var netSeq int

// Shared returns the test internet of this test binary, made on first use
// (one per package keeps the tests' time small); the package's TestMain
// calls Close. A test that changes a name's answers sets them with
// SetNames.
func Shared(t *testing.T) *Internet {
	t.Helper()
	testenv.NeedRoot(t)
	for _, tool := range []string{"ip", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Need(t, tool, err)
		}
	}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		shared, sharedErr = newInternet()
	}
	if sharedErr != nil {
		t.Fatalf("test internet: %v", sharedErr)
	}
	return shared
}

var (
	sharedMu  sync.Mutex
	shared    *Internet
	sharedErr error
)

// Close removes the shared test internet (namespaces, listeners, files).
func Close() {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		shared.close()
		shared = nil
	}
}

// defaultNames are the names the resolver answers.
func defaultNames() map[string][]string {
	return map[string][]string{
		"pkg.test": {"198.51.100.10"}, "other.test": {"198.51.100.10"}, "evil.test": {"198.51.100.12"},
		"meta.test": {"169.254.169.254"}, "lo.test": {"127.0.0.1"}, "ten.test": {"10.0.0.1"},
		"rebind.test": {"198.51.100.10", "127.0.0.1"}, "v6lo.test": {"::1"},
		"a.pkg.test": {"198.51.100.10"}, "evilpkg.test": {"198.51.100.10"},
	}
}

func newInternet() (tn *Internet, err error) {
	netSeq++
	id := fmt.Sprintf("%d%d", os.Getpid()%100000, netSeq)
	tn = &Internet{inet: "rfinet" + id, egress: "rfegr" + id, names: defaultNames()}
	defer func() {
		if err != nil {
			tn.close()
		}
	}()
	// Not under /tmp (a backend's private /tmp hides it) and readable by
	// every user: the CA file is read inside the sandbox.
	if tn.dir, err = os.MkdirTemp("/var/tmp", "ringfence-testinternet-"); err != nil {
		return nil, err
	}
	if err = os.Chmod(tn.dir, 0o755); err != nil {
		return nil, err
	}
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
	tn.netns = true
	for _, s := range steps {
		if out, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("ip %v: %v\n%s", s, err, out)
		}
	}
	cert, caPEM, err := testCerts()
	if err != nil {
		return nil, err
	}
	tn.CAFile = filepath.Join(tn.dir, "test-ca.pem")
	if err := os.WriteFile(tn.CAFile, caPEM, 0o644); err != nil {
		return nil, err
	}
	repo, err := gitRepo(tn.dir)
	if err != nil {
		return nil, err
	}
	mod, err := goModProxy()
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	tn.mux = mux
	mux.Handle("/repo.git/", http.StripPrefix("/repo.git/", http.FileServer(http.Dir(repo))))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "hello from %s", r.Host) })
	mux.HandleFunc("/big", serveBig)
	mux.Handle("/mod/", mod)
	mux.Handle("/npm/", npmRegistry("pkg.test"))
	for _, ip := range []string{"198.51.100.10", "198.51.100.12"} {
		var ls [4]net.Listener
		for i, port := range []string{"80", "443", "9418", "22"} {
			if ls[i], err = tn.listen(ip + ":" + port); err != nil {
				return nil, err
			}
		}
		go (&http.Server{Handler: mux}).Serve(ls[0])
		go (&http.Server{Handler: mux}).Serve(tls.NewListener(ls[1], &tls.Config{Certificates: []tls.Certificate{cert}}))
		go serveEcho(ls[2])
		go serveBanner(ls[3])
	}
	return tn, nil
}

// serveBig answers /big?n=BYTES with that many zero bytes.
func serveBig(w http.ResponseWriter, r *http.Request) {
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
}

func (tn *Internet) close() {
	tn.mu.Lock()
	cs := tn.closers
	tn.closers = nil
	tn.mu.Unlock()
	for _, c := range cs {
		c.Close()
	}
	if tn.netns {
		exec.Command("ip", "netns", "del", tn.inet).Run()
		exec.Command("ip", "netns", "del", tn.egress).Run()
	}
	if tn.dir != "" {
		os.RemoveAll(tn.dir)
	}
}

// SetNames makes the resolver answer host with addrs, one per lookup (the
// last repeats); no addrs restores the default answers.
func (tn *Internet) SetNames(host string, addrs ...string) {
	tn.mu.Lock()
	defer tn.mu.Unlock()
	if len(addrs) == 0 {
		addrs = defaultNames()[host]
	}
	tn.names[host] = addrs
}

// Egress is the namespace the proxy dials from (unconfined controls run
// there).
func (tn *Internet) Egress() string { return tn.egress }

// inNS runs f on a thread moved into namespace ns, then moves the thread
// back. A thread must not simply exit here: the runtime may have started a
// sandbox init from it, and its exit would fire that init's parent-death
// signal. Only if the way back fails is the thread left locked (and so
// discarded).
func inNS(ns string, f func() error) error {
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

func (tn *Internet) track(c io.Closer) {
	tn.mu.Lock()
	tn.closers = append(tn.closers, c)
	tn.mu.Unlock()
}

func (tn *Internet) listen(addr string) (net.Listener, error) {
	var l net.Listener
	err := inNS(tn.inet, func() (err error) { l, err = net.Listen("tcp", addr); return })
	if err == nil {
		tn.track(l)
	}
	return l, err
}

func (tn *Internet) listenUDP(addr string) (net.PacketConn, error) {
	var c net.PacketConn
	err := inNS(tn.inet, func() (err error) { c, err = net.ListenPacket("udp", addr); return })
	if err == nil {
		tn.track(c)
	}
	return c, err
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
	err := inNS(tn.egress, func() (err error) {
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

// UDPReceived counts the datagrams that reached the test internet's UDP
// answerer (198.51.100.10:53 and :4433), started on first use: it answers
// every datagram as a DNS server with one record would, so the control
// shows UDP and DNS straight out would work without the sandbox.
func (tn *Internet) UDPReceived(t *testing.T) int64 {
	t.Helper()
	tn.udpOnce.Do(func() {
		for _, addr := range []string{"198.51.100.10:53", "198.51.100.10:4433"} {
			c, err := tn.listenUDP(addr)
			if err != nil {
				tn.udpErr = err
				return
			}
			go answerUDP(c, &tn.udpGot)
		}
	})
	if tn.udpErr != nil {
		t.Fatalf("UDP answerer: %v", tn.udpErr)
	}
	return tn.udpGot.Load()
}

func answerUDP(c net.PacketConn, got *atomic.Int64) {
	buf := make([]byte, 1500)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			return
		}
		got.Add(1)
		if n >= 12 {
			r := append([]byte(nil), buf[:n]...)
			r[2] |= 0x80
			r[3] = 0x80
			r[7] = 1
			c.WriteTo(r, from)
		}
	}
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

// testCerts makes a CA and a leaf for the test names.
func testCerts() (tls.Certificate, []byte, error) {
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ringfence test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leafTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "pkg.test"},
		DNSNames:  []string{"pkg.test", "other.test", "evil.test", "rebind.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), nil
}

// gitRepo is a bare repository with one commit under dir, ready for dumb
// HTTP.
func gitRepo(dir string) (string, error) {
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
			return "", fmt.Errorf("%v: %v\n%s", c, err, out)
		}
	}
	return bare, nil
}

// CAVars point every client at the test CA.
func CAVars(file string) []string {
	return []string{"SSL_CERT_FILE=" + file, "CURL_CA_BUNDLE=" + file, "NODE_EXTRA_CA_CERTS=" + file, "GIT_SSL_CAINFO=" + file,
		"REQUESTS_CA_BUNDLE=" + file}
}

// InNS runs f on a thread in the network namespace ns (Egress reaches the
// test hosts directly, as a host without a namespace of its own reaches
// the internet: the landlock backend's tests run there).
func InNS(ns string, f func() error) error { return inNS(ns, f) }
