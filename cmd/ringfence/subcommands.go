package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/pid1"
)

// subcommands lists every subcommand, one file each.
func subcommands() []*cobra.Command {
	return []*cobra.Command{
		newRunCmd(),
		newShellCmd(), // shell.go
		newMCPCmd(),
		newServeCmd(), // serve.go: the agent-sandbox runtime API
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
// never return. As a container's pid 1 it becomes the container's init
// (internal/pid1: reaps, passes signals on) with itself, re-executed, as
// its child; that exits too. It reports false for an ordinary invocation.
func dispatchInternal() bool {
	if ringfence.MaybeInternal() {
		return true
	}
	if pid1.Is() {
		os.Exit(pid1.Main())
	}
	return false
}
