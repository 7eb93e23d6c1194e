package process

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// TestAttackSessionUmaskAfterFirstCreate: every process of the session
// starts with the server's umask, also after the create guard handled a
// creation (its supervisor sets its own process umask to 0). Before the
// fix the second command ran with umask 0000, so what it created in the
// workspace was world-writable on the host — a 0777 .git any local user
// could plant hooks in. The control is the first command, before any
// creation: it has the server's umask, and the server's umask is not 0
// (set here), so a 0000 later is the leak, not the host's setting.
func TestAttackSessionUmaskAfterFirstCreate(t *testing.T) {
	old := unix.Umask(0o022)
	t.Cleanup(func() { unix.Umask(old) })
	h := newHarness(t)
	umask := func() string {
		r, _ := h.execute(t, nil, "sh", "-c", "umask")
		return strings.TrimSpace(string(r.GetStdout()))
	}
	if got := umask(); got != "0022" {
		t.Fatalf("control: the first command's umask is %q, want the server's 0022", got)
	}
	// A creation the guard performs (the supervisor's first).
	h.execute(t, nil, "sh", "-c", "mkdir -p made && touch made/f")
	for i := range 3 {
		if got := umask(); got != "0022" {
			t.Fatalf("command %d after a creation runs with umask %q, want 0022", i, got)
		}
	}
	h.execute(t, nil, "sh", "-c", "mkdir later && touch later/f")
	for name, want := range map[string]os.FileMode{"later": 0o755, "later/f": 0o644, "made": 0o755, "made/f": 0o644} {
		fi, err := os.Stat(filepath.Join(h.root, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s on the host: mode %v, want %v (world-writable: %v)", name, got, want, got&0o002 != 0)
		}
	}
}

func TestAttackSessionUmaskAsNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^(TestAttackSessionUmaskAfterFirstCreate|TestAttackStdinAbandonedWrites)$")
}
