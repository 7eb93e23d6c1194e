package coderun

import (
	"context"
	"testing"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/policy"
)

// BenchmarkRun is one sh snippet with one staged input and one artifact,
// against the same command run plainly by ExecRequest: the difference is
// the runner's own cost (staging, the call directory, collection).
func BenchmarkRun(b *testing.B) {
	root := b.TempDir()
	sb, err := sandbox.New(sandbox.Config{Root: root, Defaults: policy.Defaults{Mode: policy.WorkspaceWrite, Baseline: policy.Read}})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	if sb.Backend() == "" {
		b.Skip("no backend")
	}
	req := Request{Language: "sh", Code: `cat inputs/a > "$RINGFENCE_OUTPUT_DIR/o"`, Inputs: []Input{{Name: "a", Content: []byte("x")}}}
	b.Run("run_code", func(b *testing.B) {
		for b.Loop() {
			if res, err := Run(context.Background(), sb, req); err != nil || res.Exec.Kind != "success" {
				b.Fatal(err)
			}
		}
	})
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			if res, err := sb.Exec(context.Background(), []string{"sh", "-c", "true"}, sandbox.ExecOptions{}); err != nil || res.Kind != "success" {
				b.Fatal(err)
			}
		}
	})
}
