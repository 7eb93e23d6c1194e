//go:build !linux

package fleetload

import (
	"context"
	"errors"
)

// Run needs Linux: the servers confine with namespaces and the leak
// checks read /proc.
func Run(context.Context, Config) (*Report, error) {
	return nil, errors.New("fleetload: the fleet load run needs Linux")
}
