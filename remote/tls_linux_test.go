package remote

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/testenv/testpki"
)

// Over TLS with a token (as a pod off loopback is served): a client that
// trusts the server's CA works on both ports; one that does not is refused
// at the handshake (ErrUnreachable), its token never sent.
func TestRemoteTLS(t *testing.T) {
	ca := testpki.NewCA(t, "remote test CA")
	certPEM, keyPEM := ca.Issue(t, x509.ExtKeyUsageServerAuth)
	pool := ca.Pool()
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
