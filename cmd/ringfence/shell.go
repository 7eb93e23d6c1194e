package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

func newShellCmd() *cobra.Command {
	var flags sandboxFlags
	cmd := &cobra.Command{
		Use:   "shell [flags] [-- SHELL [ARG...]]",
		Short: "Open an interactive shell in the confined environment",
		Long: `shell starts an interactive shell ($SHELL if it is an absolute path, else bash,
else sh) confined exactly as run would confine a command with the same flags, on
a new terminal that ringfence opens and relays: a person can look around inside
what an agent's commands see — the view of the host, the writable roots, the
private /tmp, the network the policy gives. ringfence's own terminal is never
handed to the shell. It needs a terminal (use run for scripts); its exit status
is the shell's.`,
		Example: `  ringfence shell
  ringfence shell --network loopback --mode read-only
  ringfence shell -- /bin/sh`,
		RunE: func(cmd *cobra.Command, argv []string) error {
			if terminalOf(cmd) == nil {
				return &exitError{code: exitUsage, err: errors.New("shell needs a terminal on stdin or stdout; use run for scripts")}
			}
			ld, err := flags.loadFor(cmd)
			if err != nil {
				return err
			}
			if len(argv) == 0 {
				argv = []string{userShell(), "-i"}
			}
			return runCommand(cmd, ld, argv, false, true)
		},
	}
	flags.register(cmd.Flags())
	return cmd
}

// userShell is the person's login shell when $SHELL names one by absolute
// path, else bash, else sh (the sandbox shows the host's system
// directories, so what exists here exists inside).
func userShell() string {
	if sh := os.Getenv("SHELL"); filepath.IsAbs(sh) {
		if fi, err := os.Stat(sh); err == nil && fi.Mode().IsRegular() {
			return sh
		}
	}
	for _, p := range []string{"/bin/bash", "/usr/bin/bash"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "/bin/sh"
}
