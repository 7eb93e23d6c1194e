package process

import (
	"google.golang.org/grpc/metadata"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
)

// exitCode is the standard's exit_code: the command's own, or -1 when it
// did not exit by itself (a signal, a timeout, the session ending) — as
// the reference daemon reports a signalled child.
func exitCode(r *sandbox.ExecResult) int32 {
	if r.ExitCode != nil {
		return int32(*r.ExitCode)
	}
	return -1
}

// trailer is the outcome as trailing metadata (package wire: the names
// and the JSON the client reads).
func trailer(r *sandbox.ExecResult, cut *sandbox.Truncated) metadata.MD {
	return wire.Trailer(r, cut)
}
