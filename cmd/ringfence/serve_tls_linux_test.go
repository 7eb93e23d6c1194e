package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/internal/testenv/testpki"
)

// Off loopback with mutual TLS: a client with a certificate the CA signed
// is served; one without, or with another CA's, is refused; the key file
// is out of the sandbox's reach.
func TestServeMutualTLS(t *testing.T) {
	dir := t.TempDir()
	ca := testpki.NewCA(t, "test CA")
	sc, sk := ca.Issue(t, x509.ExtKeyUsageServerAuth)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, b, 0o600))
		return p
	}
	certF, keyF, caF := write("server.pem", sc), write("server.key", sk), write("ca.pem", ca.PEM)
	s := startServe(t, "--root-dir", t.TempDir(), "--listen", "0.0.0.0", "--tls-cert", certF, "--tls-key", keyF, "--tls-client-ca", caF)
	addr := strings.Replace(s.grpc, "0.0.0.0", "127.0.0.1", 1)
	roots := ca.Pool()
	call := func(certs []tls.Certificate) (*pb.ExecuteResponse, error) {
		creds := credentials.NewTLS(&tls.Config{RootCAs: roots, Certificates: certs, ServerName: "localhost"})
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return pb.NewProcessServiceClient(conn).Execute(ctx, &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"cat", keyF}}})
	}
	cc, ck := ca.Issue(t, x509.ExtKeyUsageClientAuth)
	good, _ := tls.X509KeyPair(cc, ck)
	r, err := call([]tls.Certificate{good})
	if err != nil {
		t.Fatalf("with a client certificate: %v", err)
	}
	if strings.Contains(string(r.GetStdout()), "PRIVATE KEY") {
		t.Fatal("the sandbox read the server's TLS key")
	}
	if _, err := call(nil); err == nil {
		t.Fatal("served a client without a certificate")
	}
	// REST: the readiness probe needs no certificate; anything else does.
	restAddr := "https://" + strings.Replace(s.rest, "0.0.0.0", "127.0.0.1", 1)
	get := func(path string, certs []tls.Certificate) int {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs, ServerName: "localhost"}}}
		r, err := c.Get(restAddr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		r.Body.Close()
		return r.StatusCode
	}
	if c := get("/v1/health", nil); c != 200 {
		t.Fatalf("health without a certificate: %d", c)
	}
	if c := get("/v1/metadata", nil); c != http.StatusUnauthorized {
		t.Fatalf("metadata without a certificate: %d", c)
	}
	if c := get("/v1/metadata", []tls.Certificate{good}); c != http.StatusOK { // through to the files API
		t.Fatalf("metadata with a certificate: %d", c)
	}
	other := testpki.NewCA(t, "another CA")
	oc, ok := other.Issue(t, x509.ExtKeyUsageClientAuth)
	bad, _ := tls.X509KeyPair(oc, ok)
	if _, err := call([]tls.Certificate{bad}); err == nil {
		t.Fatal("served a client whose certificate another CA signed")
	}
}
