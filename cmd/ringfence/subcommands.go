package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/pid1"
)

// commands are the subcommands, one file each, in the order help lists them.
var commands = []struct {
	name string
	make func() *cobra.Command
}{
	{"run", newRunCmd},
	{"shell", newShellCmd}, // shell.go
	{"mcp", newMCPCmd},
	{"serve", newServeCmd}, // serve.go: the agent-sandbox runtime API
	{"audit", newAuditCmd},
	{"classify", newClassifyCmd},
	{"policy", newPolicyCmd},
	{"doctor", newDoctorCmd},
	{"conformance", newConformanceCmd},
	{"cache", newCacheCmd},
	{"version", newVersionCmd},
}

// subcommands makes every subcommand.
func subcommands() []*cobra.Command {
	all := make([]*cobra.Command, len(commands))
	for i, c := range commands {
		all[i] = c.make()
	}
	return all
}

// subcommandsFor makes only the subcommand args invoke, when args name one
// (`run …`, `--color never mcp …`): building every command's flags is a
// tenth of a cold start's page faults, and a run pays for all of it. Help,
// completion, a mistyped name and no name at all get every subcommand, so
// that listings and suggestions are whole. Which word names the command is
// cobra's own decision (Find over a root with the real root's flags and a
// stub per subcommand): its rules for flag values before the name — `-h
// run` is help with "run" as the flag's value, `--policy p run` is run —
// are not ours to copy.
func subcommandsFor(args []string) []*cobra.Command {
	root := bareRoot()
	stubs := make(map[*cobra.Command]int, len(commands))
	for i, c := range commands {
		stub := &cobra.Command{Use: c.name, Run: func(*cobra.Command, []string) {}}
		root.AddCommand(stub)
		stubs[stub] = i
	}
	if found, _, err := root.Find(args); err == nil {
		if i, ok := stubs[found]; ok {
			return []*cobra.Command{commands[i].make()}
		}
	}
	return subcommands()
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
