//go:build linux

package files

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// naive is the control: a file server that joins the request's path to
// the root (an absolute one taken as it is) and lets the kernel follow
// whatever it meets — what a REST file API does without a fence. Each
// attack is tried against it first, to prove the attack is real here.
type naive struct{ root string }

func (n naive) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(n.root, p)
}

func (n naive) read(p string) ([]byte, error) { return os.ReadFile(n.path(p)) }

func (n naive) write(p, body string) error {
	must := n.path(p)
	if err := os.MkdirAll(filepath.Dir(must), 0o755); err != nil {
		return err
	}
	return os.WriteFile(must, []byte(body), 0o644)
}

// attackFix lays out what a confined command could have left in the
// workspace before the call: links out, a hard link to an outside file,
// a fifo.
func attackFix(t *testing.T, edit func(*Options)) (fix, naive) {
	f := newFix(t, edit)
	must(t, os.Symlink("../outside", filepath.Join(f.root, "out")))
	must(t, os.Symlink(f.outside, filepath.Join(f.root, "abs")))
	must(t, os.Symlink("../outside/sentinel", filepath.Join(f.root, "outfile")))
	must(t, os.Link(filepath.Join(f.outside, "sentinel"), filepath.Join(f.root, "hard")))
	must(t, syscall.Mkfifo(filepath.Join(f.root, "fifo"), 0o644))
	return f, naive{f.root}
}

// TestAttackReads: every way a request could read the outside sentinel.
// The naive control leaks it for each; the handler answers 403 and
// never the sentinel's bytes.
func TestAttackReads(t *testing.T) {
	f, n := attackFix(t, nil)
	for _, tc := range []struct{ name, path, target string }{
		{"dot-dot encoded", "../outside/sentinel", "%2E%2E/outside/sentinel"},
		{"dot-dot in an encoded slash run", "../outside/sentinel", "%2E%2E%2Foutside%2Fsentinel"},
		{"symlinked directory", "out/sentinel", "out/sentinel"},
		{"absolute symlink", "abs/sentinel", "abs/sentinel"},
		{"final symlink", "outfile", "outfile"},
		{"hard link", "hard", "hard"},
		{"absolute path", filepath.Join(f.outside, "sentinel"), strings.ReplaceAll(filepath.Join(f.outside, "sentinel"), "/", "%2F")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if b, err := n.read(tc.path); err != nil || string(b) != sentinel {
				t.Fatalf("control: the naive server did not leak %s: %q %v", tc.path, b, err)
			}
			for _, method := range []string{http.MethodGet, http.MethodHead} {
				r := f.do(t, method, "/v1/files/"+tc.target, nil)
				if r.status != http.StatusForbidden || bytes.Contains(r.body, []byte(sentinel)) {
					t.Errorf("%s %s: %d %q, want 403", method, tc.target, r.status, r.body)
				}
				if method == http.MethodGet && r.errorCode(t) != CodePermissionDenied {
					t.Errorf("code: %s", r.body)
				}
				if k := r.outcomeKind(t); k != "path-rejected" && k != "denied-by-policy" {
					t.Errorf("outcome %s", k)
				}
			}
		})
	}
	t.Run("denied path", func(t *testing.T) {
		if b, err := n.read("secret/key"); err != nil || len(b) == 0 {
			t.Fatalf("control: %v", err)
		}
		r := f.do(t, http.MethodGet, "/v1/files/secret/key", nil)
		if r.status != http.StatusForbidden || r.outcomeKind(t) != "denied-by-policy" || bytes.Contains(r.body, []byte("hidden")) {
			t.Errorf("secret/key: %d %s", r.status, r.body)
		}
	})
	t.Run("fifo is never opened", func(t *testing.T) {
		// The naive server would block here for ever (open(2) of a fifo
		// waits for a writer); the handler must answer at once.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.srv.URL+"/v1/files/fifo", nil)
		resp, err := f.srv.Client().Do(req)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("fifo: %d", resp.StatusCode)
		}
	})
	t.Run("hard link allowed by the operator", func(t *testing.T) {
		g, _ := attackFix(t, func(o *Options) { o.AllowHardLinkReads = true })
		if r := g.do(t, http.MethodGet, "/v1/files/hard", nil); r.status != 200 || string(r.body) != sentinel {
			t.Errorf("AllowHardLinkReads: %d %q", r.status, r.body)
		}
	})
}

// TestAttackWrites: every way a request could change something outside
// the root, or plant a protected name. The naive control does each; the
// handler answers 403, and nothing outside or protected changes.
func TestAttackWrites(t *testing.T) {
	for _, tc := range []struct{ name, path, target, check string }{
		{"dot-dot encoded", "../outside/planted", "%2E%2E/outside/planted", ""},
		{"symlinked directory", "out/planted", "out/planted", ""},
		{"absolute symlink", "abs/planted", "abs/planted", ""},
		{"final symlink", "outfile", "outfile", ""},
		{"hard link", "hard", "hard", ""},
		{"absolute path", "OUTSIDE/planted", "OUTSIDE/planted", ""},
		{"git hook", ".git/hooks/pre-commit", ".git/hooks/pre-commit", ".git/hooks/pre-commit"},
		{"git config", ".git/config", ".git/config", ".git/config"},
		{"envrc at depth", "sub/dir/.envrc", "sub%2Fdir%2F.envrc", "sub/dir/.envrc"},
		{"nested git hooks", "vendor/x/.git/hooks/post-checkout", "vendor/x/.git/hooks/post-checkout", "vendor/x/.git/hooks/post-checkout"},
		{"hook name at depth", "scripts/pre-push", "scripts/pre-push", "scripts/pre-push"},
		{"editor config", ".vscode/tasks.json", ".vscode/tasks.json", ".vscode/tasks.json"},
		{"shell rc", ".bashrc", ".bashrc", ".bashrc"},
		{"denied path", "secret/key", "secret/key", "secret/key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, n := attackFix(t, nil)
			ctl, _ := attackFix(t, nil)
			nc := naive{ctl.root}
			path := strings.ReplaceAll(tc.path, "OUTSIDE", ctl.outside)
			before := snapshot(t, ctl)
			if err := nc.write(path, "PLANTED"); err != nil || snapshot(t, ctl) == before {
				t.Fatalf("control: the naive write of %s changed nothing: %v", path, err)
			}
			_ = n
			before = snapshot(t, f)
			target := strings.ReplaceAll(tc.target, "OUTSIDE", strings.ReplaceAll(f.outside, "/", "%2F"))
			r := f.put(t, "/v1/files/"+target, "PLANTED")
			if r.status != http.StatusForbidden || r.errorCode(t) != CodePermissionDenied {
				t.Errorf("PUT %s: %d %s, want 403", target, r.status, r.body)
			}
			if after := snapshot(t, f); after != before {
				t.Errorf("PUT %s changed the tree:\n%s\nwas\n%s", target, after, before)
			}
			f.checkOutside(t)
			f.checkNoTemp(t)
		})
	}
}

// TestAttackDeletes: removing through a link removes the link, never what
// it leads to; a protected or denied name is never removed, alone or
// inside a tree (and then nothing of the tree is).
func TestAttackDeletes(t *testing.T) {
	f, _ := attackFix(t, nil)
	writeFile(t, filepath.Join(f.root, "proj/src/a.go"), "package a\n")
	writeFile(t, filepath.Join(f.root, "proj/.git/hooks/pre-commit"), "#!/bin/sh\n")
	before := snapshot(t, f)
	for _, target := range []string{"out/sentinel", "%2E%2E/outside/sentinel", ".git?recursive=true", ".git/hooks/pre-commit",
		"proj?recursive=true", "secret?recursive=true", "?recursive=true"} {
		r := f.do(t, http.MethodDelete, "/v1/files/"+target, nil)
		if r.status != http.StatusForbidden {
			t.Errorf("DELETE %s: %d %s, want 403", target, r.status, r.body)
		}
	}
	if after := snapshot(t, f); after != before {
		t.Errorf("refused deletes changed the tree:\n%s\nwas\n%s", after, before)
	}
	for _, target := range []string{"out", "abs", "outfile", "hard"} {
		if r := f.do(t, http.MethodDelete, "/v1/files/"+target, nil); r.status != http.StatusNoContent {
			t.Errorf("DELETE %s: %d %s", target, r.status, r.body)
		}
	}
	f.checkOutside(t)
}

// TestAttackHugeBody: an upload over the bound is refused, whether its
// length is declared or streamed, and leaves no file and no temp file.
func TestAttackHugeBody(t *testing.T) {
	f := newFix(t, func(o *Options) { o.MaxUploadBytes = 1 << 20 })
	big := strings.Repeat("x", 3<<20)
	r := f.put(t, "/v1/files/big", big) // Content-Length declared
	if r.status != http.StatusRequestEntityTooLarge || r.errorCode(t) != CodeResourceExhausted || r.outcomeKind(t) != "over-budget" {
		t.Errorf("declared: %d %s", r.status, r.body)
	}
	// Chunked: no length until the bytes run over.
	r = f.do(t, http.MethodPut, "/v1/files/big", io.MultiReader(strings.NewReader(big)))
	if r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("streamed: %d %s", r.status, r.body)
	}
	// Just under the bound still works.
	if r = f.put(t, "/v1/files/fits", big[:1<<20]); r.status != http.StatusNoContent {
		t.Errorf("at the bound: %d %s", r.status, r.body)
	}
	if _, err := os.Lstat(filepath.Join(f.root, "big")); err == nil {
		t.Error("an over-bound upload left a file")
	}
	f.checkNoTemp(t)
}

// TestAttacksNonRoot runs the attack suite again as an unprivileged user.
func TestAttacksNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestAttack(Reads|Writes|Deletes|HugeBody)$")
}

// snapshot is every name under base with its type and contents.
func snapshot(t *testing.T, f fix) string {
	t.Helper()
	var sb strings.Builder
	_ = filepath.Walk(f.base, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		sb.WriteString(strings.TrimPrefix(p, f.base) + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			sb.WriteString(" " + string(b))
		}
		sb.WriteString("\n")
		return nil
	})
	return sb.String()
}
