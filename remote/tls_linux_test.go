package remote

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
)

// testCert makes a CA and a server certificate for 127.0.0.1 it signs.
func testCert(t *testing.T) (caPool *x509.CertPool, certPEM, keyPEM []byte) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "remote test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	caPool = x509.NewCertPool()
	caPool.AddCert(ca)
	return caPool, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// Over TLS with a token (as a pod off loopback is served): a client that
// trusts the server's CA works on both ports; one that does not is refused
// at the handshake (ErrUnreachable), its token never sent.
func TestRemoteTLS(t *testing.T) {
	pool, certPEM, keyPEM := testCert(t)
	dir := t.TempDir()
	files := map[string][]byte{"cert.pem": certPEM, "key.pem": keyPEM, "token": []byte("tls-token-0123456789abcdef0123456789\n")}
	for n, b := range files {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := startServe(t, "", "--tls-cert", filepath.Join(dir, "cert.pem"), "--tls-key", filepath.Join(dir, "key.pem"),
		"--token-file", filepath.Join(dir, "token"))
	ctx := ctxT(t)
	sb := s.client(t, Options{Token: "tls-token-0123456789abcdef0123456789", TLS: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}})
	if err := sb.WriteFile(ctx, "a.txt", []byte("over tls\n")); err != nil {
		t.Fatal(err)
	}
	res, err := sb.Exec(ctx, []string{"cat", "a.txt"}, ringfence.ExecOptions{})
	if err != nil || res.Stdout != "over tls\n" || res.Backend != "linux" {
		t.Fatalf("Exec over TLS: %+v %v", res, err)
	}
	untrusting := s.client(t, Options{Token: "tls-token-0123456789abcdef0123456789", TLS: &tls.Config{MinVersion: tls.VersionTLS12}})
	if _, err := untrusting.Exec(ctx, []string{"true"}, ringfence.ExecOptions{}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("Exec trusting no CA: %v", err)
	}
	if _, err := untrusting.ReadFile(ctx, "a.txt", 100); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("ReadFile trusting no CA: %v", err)
	}
}
