//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

// TestExecScratchIsTheExecPipeline: a code runner's call directory runs
// through the same pipeline as ExecRequest — the call's environment is
// named in the result, a done context is refused before anything starts,
// and the timeout stops it as a timeout — only the working directory
// differs, and one outside the private temp dir is refused.
func TestExecScratchIsTheExecPipeline(t *testing.T) {
	l := newLocal(t, Config{})
	dir := filepath.Join(l.ScratchDir(), "call-1")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := l.ExecScratch(ctx, []string{"/bin/sh", "-c", `pwd; echo "$CALLVAR"`}, dir,
		ExecOptions{Env: map[string]string{"CALLVAR": "given"}}, policy.Request{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != KindSuccess || !strings.HasSuffix(strings.Fields(res.Stdout)[0], "/call-1") || !strings.Contains(res.Stdout, "given") {
		t.Fatalf("kind %s stdout %q stderr %q", res.Kind, res.Stdout, res.Stderr)
	}
	if !slices.Contains(res.Env, "CALLVAR") {
		t.Fatalf("env names %v: the scratch run did not report its environment as Exec does", res.Env)
	}

	res, err = l.ExecScratch(ctx, []string{"/bin/sleep", "10"}, dir, ExecOptions{Timeout: 300 * time.Millisecond}, policy.Request{})
	if err != nil || res.Kind != KindTimedOut {
		t.Fatalf("timeout: %+v, %v", res, err)
	}

	done, cancel := context.WithCancel(ctx)
	cancel()
	marker := filepath.Join(dir, "ran")
	if _, err := l.ExecScratch(done, []string{"/bin/sh", "-c", "touch " + marker}, dir, ExecOptions{}, policy.Request{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("done context: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a call with a done context ran")
	}

	for _, bad := range []string{l.ScratchDir(), hostDir(t), l.ScratchDir() + "/../x", "relative"} {
		if _, err := l.ExecScratch(ctx, []string{"/bin/true"}, bad, ExecOptions{}, policy.Request{}); !errors.Is(err, pathrule.ErrPathRefused) {
			t.Errorf("dir %q: %v, want pathrule.ErrPathRefused", bad, err)
		}
	}
}
