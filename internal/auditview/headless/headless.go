// Package headless renders a page in headless Chromium for tests and
// returns the DOM after its scripts ran, so a test can check what a person
// opening the page would see. Chromium runs with a throw-away profile in a
// network namespace of its own (with a user namespace when not root) whose
// only loopback is down: the page is proved to need no network, and
// nothing the page (or Chromium) tries can leave the machine.
package headless

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/testenv"
)

// Browser is the Chromium binary: $RINGFENCE_CHROMIUM, else chromium or
// chromium-browser on PATH.
func Browser(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("RINGFENCE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testenv.Need(t, "chromium (apt-get install chromium)", errors.New("not on PATH"))
	return ""
}

// DumpDOM opens file (an absolute path) with fragment as the URL's hash
// ("" for none), lets its scripts run, and returns the serialized DOM.
func DumpDOM(t testing.TB, file, fragment string) string {
	t.Helper()
	browser := Browser(t)
	url := "file://" + file
	if fragment != "" {
		url += "#" + fragment
	}
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-default-apps", "--disable-sync", "--no-first-run",
		"--disable-extensions", "--user-data-dir=" + t.TempDir(),
		"--virtual-time-budget=3000", "--dump-dom", url,
	}
	// A network namespace of its own (a user namespace first, when not
	// root): nothing Chromium or the page tries can leave the machine.
	u, err := exec.LookPath("unshare")
	if err != nil {
		testenv.Need(t, "unshare (util-linux)", err)
	}
	name, pre := u, []string{"--net", "--"}
	if os.Geteuid() != 0 {
		pre = append([]string{"--user", "--map-root-user"}, pre...)
	}
	args = append(append(pre, browser), args...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var errOut strings.Builder
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "<html") {
		t.Fatalf("chromium: %v\nstderr: %s\nstdout: %.500s", err, errOut.String(), out)
	}
	return string(out)
}
