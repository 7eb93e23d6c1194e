//go:build linux

package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/policy"
	"golang.org/x/sys/unix"
)

// FuzzResolve: whatever the model path, a lookup that succeeds names
// something beneath the root, by both resolvers, and what the descriptor
// really is agrees with the real path the resolver reported.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.txt", "in/main.go", "out/sentinel", "src/up/src/up/a.txt", "proc/etc",
		"loop", "/workspace/src", "src/escape", "abs", "tosecret/key", "src/../../outside", "a/../in/../out"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	fx := newFixture(f)
	rootReal, err := filepath.EvalSymlinks(fx.root)
	if err != nil {
		f.Fatal(err)
	}
	w := open(f, policyFor(fx.root, policy.WorkspaceWrite), false)
	walk := open(f, policyFor(fx.root, policy.WorkspaceWrite), true)
	f.Fuzz(func(t *testing.T, path string, useWalk bool) {
		ws := w
		if useWalk {
			ws = walk
		}
		rel, err := ws.clean(path)
		if err != nil {
			return
		}
		fd, real, err := ws.res.resolve(rel, true)
		if err != nil {
			return
		}
		defer sysClose(fd)
		if strings.Contains("/"+real+"/", "/../") || strings.HasPrefix(real, "/") {
			t.Fatalf("%q resolved to %q", path, real)
		}
		host, err := fdPath(fd)
		if err != nil {
			t.Fatal(err)
		}
		if host != rootReal && !strings.HasPrefix(host, rootReal+"/") {
			t.Fatalf("%q resolved outside the root: %s", path, host)
		}
		var st unix.Stat_t
		lst, err := os.Lstat(filepath.Join(fx.root, real))
		if err != nil || unix.Fstat(fd, &st) != nil || lst.Sys().(*syscall.Stat_t).Ino != st.Ino {
			t.Fatalf("%q: reported real path %q is not what the descriptor holds", path, real)
		}
	})
}
