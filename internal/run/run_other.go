//go:build !linux

package run

import (
	"context"
	"fmt"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// ErrUnsupported says supervision is not implemented on this platform.
var ErrUnsupported = fmt.Errorf("%w: process supervision is implemented for linux only", policy.ErrUnavailable)

// Run is unavailable off Linux.
func Run(ctx context.Context, c *confine.Cmd, o Options) (*Result, error) {
	return nil, &StartError{Err: ErrUnsupported}
}

// Probe reports that nothing is offered here.
func Probe() Capabilities {
	return Capabilities{Resources: ResourcesMonitor, Reason: ErrUnsupported.Error()}
}
