package main

import (
	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
)

// subcommands lists every subcommand, one file each.
func subcommands() []*cobra.Command {
	return []*cobra.Command{
		newRunCmd(),
		newShellCmd(), // shell.go
		newMCPCmd(),
		newAuditCmd(),
		newClassifyCmd(),
		newPolicyCmd(),
		newDoctorCmd(),
		newConformanceCmd(),
		newCacheCmd(),
		newVersionCmd(),
	}
}

// dispatchInternal runs the hidden entry points the binary re-executes
// itself as (the sandbox init, the subreaper, bwrap's exec shim); those
// never return. It reports false for an ordinary invocation.
func dispatchInternal() bool { return ringfence.MaybeInternal() }
