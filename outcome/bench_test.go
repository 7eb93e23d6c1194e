package outcome

import (
	"strings"
	"testing"
)

// BenchmarkClassifyExec measures the worst ordinary case: a full 1 MiB
// stderr capture, every line scanned against the dialect.
func BenchmarkClassifyExec(b *testing.B) {
	line := "warning: something ordinary happened in a long build step\n"
	stderr := []byte(strings.Repeat(line, (1<<20)/len(line)))
	ev := Evidence{ExitCode: code(1), Stderr: stderr}
	b.SetBytes(int64(len(stderr)))
	for b.Loop() {
		ClassifyExec(ev, bwrapDialect)
	}
}

func BenchmarkNarrate(b *testing.B) {
	o := Outcome{Kind: SandboxViolation, ExitCode: code(1), Violations: []string{"read-only-filesystem: /etc/x"}}
	for b.Loop() {
		Narrate(o, goldenContext)
	}
}
