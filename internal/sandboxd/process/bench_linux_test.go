package process

import (
	"testing"

	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
)

// BenchmarkExecuteTrue is one Execute of /bin/true over loopback gRPC,
// confined in the server's warm session.
func BenchmarkExecuteTrue(b *testing.B) {
	h := newHarness(b)
	req := &pb.ExecuteRequest{Config: &pb.ProcessConfig{Command: []string{"true"}}}
	b.ResetTimer()
	for b.Loop() {
		if r, err := h.c.Execute(b.Context(), req); err != nil || r.GetExitCode() != 0 {
			b.Fatalf("%v %v", r, err)
		}
	}
}
