package testpki

import (
	"crypto/tls"
	"crypto/x509"
	"testing"
)

// A certificate verifies against its own CA, for its name and usage, and
// not against another CA.
func TestIssueVerifies(t *testing.T) {
	ca, other := NewCA(t, "a"), NewCA(t, "b")
	certPEM, keyPEM := ca.Issue(t, x509.ExtKeyUsageServerAuth)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"127.0.0.1", "localhost"} {
		opts := x509.VerifyOptions{Roots: ca.Pool(), DNSName: name, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		if _, err := leaf.Verify(opts); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: other.Pool()}); err == nil {
		t.Error("verified against another CA")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: ca.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Error("a server certificate verified for client auth")
	}
}
