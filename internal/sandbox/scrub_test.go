package sandbox

import "testing"

func TestScrubHostPaths(t *testing.T) {
	l := &Local{cfg: Config{MountPath: "/workspace"}, tempDir: "/tmp/ringfence-tmp-1"}
	l.defaults.Root = "/home/me/app"
	if got := l.scrubHostPaths("missing: /home/me/app/.bashrc, /tmp/ringfence-tmp-1/.zshrc"); got != "missing: /workspace/.bashrc, /tmp/.zshrc" {
		t.Errorf("scrubbed %q", got)
	}
	l.defaults.Root = "/"
	if got := l.scrubHostPaths("missing: /etc/x"); got != "missing: /etc/x" {
		t.Errorf("a root of / rewrote every slash: %q", got)
	}
}
