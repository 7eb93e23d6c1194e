package remote

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docsGoBlock is the fenced block of path marked checked-by name.
func docsGoBlock(t *testing.T, path, name string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- checked-by: " + name + " -->\n```go\n(.*?)```")
	m := re.FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("%s has no Go block checked by %s", path, name)
	}
	return m[1]
}

// The "Use it from Go" example of docs/kubernetes.md, as shown, runs
// against a local sandbox, and — with the one line changed — against a
// real `ringfence serve`, with the same outcome: the file read, the write
// outside refused. The program adds only the names the snippet takes as
// given and the MaybeInternal call a local sandbox needs.
func TestDocUseFromGo(t *testing.T) {
	snippet := docsGoBlock(t, "../docs/kubernetes.md", "TestDocUseFromGo")
	local := regexp.MustCompile(`(?m)^sb, err := ringfence\.New\(.*\n`)
	pod := regexp.MustCompile(`(?m)^// (sb, err := remote\.New\(.*\n)`)
	if !local.MatchString(snippet) || !pod.MatchString(snippet) {
		t.Fatal("the example no longer has the local line and the commented remote one")
	}
	// The pod's variant: the local line out, the remote one in.
	remoteSnippet := pod.ReplaceAllString(local.ReplaceAllString(snippet, ""), "$1")
	dir, err := os.MkdirTemp("..", ".remote-doc-example-") // inside the module, never matched by ./...
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if dir, err = filepath.Abs(dir); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, "")
	for _, v := range []struct{ name, body string }{{"local", snippet}, {"pod", remoteSnippet}} {
		prog := `package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"log"
	"os"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/remote"
)

var _, _ = ringfence.New, remote.New

func main() {
	if ringfence.MaybeInternal() {
		return
	}
	ctx, root, grpcAddr, restAddr := context.Background(), os.Args[1], os.Args[2], os.Args[3]
	token, tlsConfig := "", (*tls.Config)(nil)
	_, _, _, _ = root, grpcAddr, restAddr, token
	_ = tlsConfig
` + "\t" + strings.ReplaceAll(strings.TrimSpace(v.body), "\n", "\n\t") + `
}
`
		src := filepath.Join(dir, v.name)
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(prog), 0o644); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(src, "example")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = src
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s: build: %v\n%s\n%s", v.name, err, out, prog)
		}
		root := t.TempDir()
		if v.name == "pod" {
			root = s.root
		}
		run := exec.Command(bin, root, s.grpc, s.rest)
		run.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir())
		out, err := run.CombinedOutput()
		if err != nil || string(out) != "denied: hello\n" {
			t.Fatalf("%s: %v: %q, want %q", v.name, err, out, "denied: hello\n")
		}
	}
}
