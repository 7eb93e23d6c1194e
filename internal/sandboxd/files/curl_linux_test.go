//go:build linux

package files

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/entry"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/policy"
)

// serveEnv makes the test binary a file server on localhost:8080 over the
// root it names (TestMain), for curl to talk to in its own network
// namespace: the guide's examples name that port, and a namespace of the
// test's own keeps it from any other server on this machine.
const serveEnv = "RINGFENCE_FILES_TEST_SERVE"

func TestMain(m *testing.M) {
	entry.Role(serveEnv, func(root string) int {
		if err := serveForCurl(root); err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			return 1
		}
		return 0
	})
	entry.Tests(m)
}

func serveForCurl(root string) error {
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("lo up: %w", err)
	}
	d := policy.AgentDefaults()
	d.Root = root
	pol, err := policy.Resolve(policy.Request{}, d)
	if err != nil {
		return err
	}
	ws, err := workspace.New(pol, workspace.Options{})
	if err != nil {
		return err
	}
	h, err := NewHandler(Options{Root: root, Workspace: ws})
	if err != nil {
		return err
	}
	// "localhost" may be tried as ::1 first; serve both.
	var lns []net.Listener
	for _, addr := range []string{"127.0.0.1:8080", "[::1]:8080"} {
		ln, err := net.Listen("tcp", addr)
		if err != nil && addr == "127.0.0.1:8080" {
			return err
		}
		if err == nil {
			lns = append(lns, ln)
		}
	}
	srv := h.Server("", 0)
	for _, ln := range lns {
		go func() { _ = srv.Serve(ln) }()
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	h.SetShuttingDown()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loopbackUp brings lo up in a fresh network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// guideText is embedded so the non-root rerun, from a copy of the test
// binary elsewhere, has it too.
//
//go:embed testdata/user_guide_curl.md
var guideText string

// guideBlock is the bash block of testdata/user_guide_curl.md.
func guideBlock(t *testing.T) string {
	_, rest, ok := strings.Cut(guideText, "```bash\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 || !strings.Contains(block, "curl") {
		t.Fatal("testdata/user_guide_curl.md holds no bash block")
	}
	return block
}

// TestUserGuideCurl runs the USER_GUIDE's curl examples verbatim, with
// the real curl, against the handler on localhost:8080.
func TestUserGuideCurl(t *testing.T) {
	for _, tool := range []string{"curl", "unshare"} {
		_, err := exec.LookPath(tool)
		testenv.Need(t, tool, err)
	}
	self, err := os.Executable()
	must(t, err)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	must(t, err)
	root, work := filepath.Join(dir, "ws"), filepath.Join(dir, "work")
	must(t, os.MkdirAll(root, 0o755))
	writeFile(t, filepath.Join(work, "local.py"), "print('hello from local.py')\n")
	script := `set -e
"$SELF" & pid=$!
trap 'kill $pid; wait $pid' EXIT
i=0
until curl -s -o /dev/null localhost:8080/v1/health; do
	i=$((i+1)); [ $i -lt 100 ] || { echo "server never answered"; exit 1; }
	sleep 0.05
done
` + guideBlock(t)
	args := []string{"--net", "sh", "-c", script}
	if os.Geteuid() != 0 {
		args = append([]string{"--user", "--map-root-user"}, args...)
	}
	cmd := exec.Command("unshare", args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "SELF="+self, serveEnv+"="+root,
		"SANDBOX_ID=curl-test", "SANDBOX_API_TOKEN=must-not-show")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the guide's examples failed: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{
		"print('hello from local.py')",                // read back
		`"name":"main.py"`, `"path":"/workspace/src"`, // listed
		"HTTP/1.1 200 OK", "Content-Length: 29", "Ringfence-Outcome: {\"kind\":\"ok\"", // probed
		`{"status":"ok"`,           // health
		`"SANDBOX_ID":"curl-test"`, // metadata
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "must-not-show") {
		t.Errorf("metadata served a credential:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(root, "src")); !os.IsNotExist(err) {
		t.Errorf("src survived the recursive delete: %v", err)
	}
	t.Logf("curl output:\n%s", text)
}

// TestUserGuideCurlNonRoot is the same as an unprivileged user (curl and
// the server in a user and network namespace of their own).
func TestUserGuideCurlNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestUserGuideCurl$")
}
