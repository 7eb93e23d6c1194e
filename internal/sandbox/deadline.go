package sandbox

import (
	"context"
	"time"
)

// withDeadline folds the context's deadline into the timeout, so a command
// stopped by it is reported timed-out, with the time it had, like any
// other timeout (never as aborted).
func withDeadline(ctx context.Context, timeout time.Duration) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return timeout
	}
	left := max(time.Until(dl), time.Nanosecond)
	if timeout <= 0 || left < timeout {
		return left
	}
	return timeout
}

// killAfter is the grace a timed-out or cancelled command gets between
// SIGTERM and SIGKILL (run.Options.KillAfter: zero there kills at once).
func (l *Local) killAfter() time.Duration {
	switch {
	case l.cfg.KillAfter < 0:
		return 0
	case l.cfg.KillAfter == 0:
		return DefaultKillAfter
	}
	return l.cfg.KillAfter
}
