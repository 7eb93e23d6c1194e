package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/policy"
)

// BenchmarkReadFileCall is read_file of a 4 KiB file through Call (decode,
// permissions, read, narration, scrub); BenchmarkReadFileDirect is the
// workspace read alone: the difference is the tool layer's cost.
func BenchmarkReadFileCall(b *testing.B) {
	f := benchFixture(b)
	args := json.RawMessage(`{"path":"a.txt"}`)
	for b.Loop() {
		if r := f.set.Call(context.Background(), "read_file", args); r.IsError {
			b.Fatal(r.Text)
		}
	}
}

func BenchmarkReadFileDirect(b *testing.B) {
	f := benchFixture(b)
	for b.Loop() {
		if _, err := f.sb.Workspace().ReadFile("a.txt", workspace.ReadOptions{MaxBytes: DefaultMaxReadBytes}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPermissionsPipeline(b *testing.B) {
	f := benchFixture(b)
	args := json.RawMessage(`{"command":"ls | grep x && curl http://example.com | tee out"}`)
	for b.Loop() {
		if _, err := f.set.Permissions("run_command", args); err != nil {
			b.Fatal(err)
		}
	}
}

func benchFixture(b *testing.B) *fixture {
	f := newFixtureTB(b, setup{mode: policy.WorkspaceWrite})
	f.write("a.txt", strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 64))
	return f
}
