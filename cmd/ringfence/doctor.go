package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ringfence/ringfence/internal/confine/probe"
)

var errSimulatedNoUserNS = errors.New("simulated: creating a user namespace was refused (EPERM)")

func newDoctorCmd() *cobra.Command {
	var asJSON bool
	var simulate string
	cmd := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "Report what this host can enforce and which backend auto picks",
		Long: `doctor probes this host — kernel, Landlock ABI, seccomp, user namespaces (and
why not), cgroups and their delegation, bubblewrap, the linux backend's own
trial (and the steps it leaves out here), whether it runs inside a container and
what the container's runtime took away — and reports the backend
"auto" would choose and, for each policy feature, whether it is enforced
full, partial or not at all here. Every trial runs in a child process.`,
		Example: `  ringfence doctor
  ringfence doctor --json
  ringfence doctor --simulate no-userns   # as on a host that forbids user namespaces`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src := probe.HostSources()
			switch simulate {
			case "":
			case "no-userns":
				// As on Ubuntu 24.04's AppArmor rule or in many containers:
				// the trial clone is refused, everything else is this host's.
				src.TryUserNS = func() error { return errSimulatedNoUserNS }
				src.Linux = nil // the backend falls with user namespaces
			default:
				return &exitError{code: exitUsage, err: fmt.Errorf("--simulate %q: the only simulation is no-userns", simulate)}
			}
			r := probe.Probe(src)
			if asJSON {
				b, err := r.JSON()
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(append(b, '\n'))
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), r.Text())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().StringVar(&simulate, "simulate", "", "report as if the host lacked a feature: no-userns")
	return cmd
}
