package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/ringfence/ringfence/policy"
)

// Flag validation: a flag set that asks for two things that cannot both
// hold is refused with the reason (exit 125), never resolved by quietly
// dropping one. The decisions are pure functions over what was set.

// sandboxFacts is what the shared sandbox flags asked for, after the
// policy file: the resolved mode and network, and which flags the person
// set explicitly.
type sandboxFacts struct {
	mode         policy.Mode
	network      policy.NetworkMode
	networkSet   bool // --network given
	restrictions int  // --deny and --read-only entries
	timeout      time.Duration
	killAfter    time.Duration
	cpuTime      time.Duration
	pids         int
}

// flagConflict says why a flag set cannot be honoured.
func flagConflict(f sandboxFacts) error {
	switch {
	case f.timeout < 0:
		return fmt.Errorf("--timeout %v: must not be negative", f.timeout)
	case f.killAfter < 0:
		return fmt.Errorf("--kill-after %v: must not be negative (0 kills at once)", f.killAfter)
	case f.cpuTime < 0:
		return fmt.Errorf("--cpu-time %v: must not be negative", f.cpuTime)
	case f.pids < 0:
		return fmt.Errorf("--pids %d: must not be negative", f.pids)
	case f.mode == policy.DangerFullAccess && f.networkSet && f.network != policy.NetAllowAll:
		return fmt.Errorf("--mode danger-full-access runs the command unconfined, so --network %s cannot be enforced; drop one of them",
			f.network)
	case f.mode == policy.DangerFullAccess && f.restrictions > 0:
		return fmt.Errorf("--mode danger-full-access runs the command unconfined, so --deny and --read-only cannot be enforced; drop one of them")
	}
	return nil
}

// check refuses flag values that are wrong on their own, before anything
// is loaded.
func (f *sandboxFlags) check() error {
	return flagConflict(sandboxFacts{
		mode: policy.WorkspaceWrite, timeout: f.timeout, killAfter: f.killAfter,
		cpuTime: f.cpuTime, pids: f.pids,
	})
}

// checkResolved refuses a combination that only shows once the policy file
// and the flags are laid together (a file's danger-full-access with a
// --network deny flag).
func (f *sandboxFlags) checkResolved(fs *pflag.FlagSet, d *policy.Defaults) error {
	return flagConflict(sandboxFacts{
		mode: d.Mode, network: d.Network.Mode, networkSet: fs.Changed("network"),
		restrictions: len(f.deny) + len(f.readOnly),
	})
}

// killAfter maps the flag onto ringfence.Config.KillAfter, where zero means
// the default and a negative value means none.
func killAfter(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// mcpConflict says why the MCP server's own flags cannot be honoured.
func mcpConflict(httpAddr, token, tokenFile string) error {
	switch {
	case token != "" && tokenFile != "":
		return fmt.Errorf("--token and --token-file both give the bearer token; use one (prefer --token-file)")
	case httpAddr == "" && (token != "" || tokenFile != ""):
		return fmt.Errorf("--token and --token-file protect the HTTP transport, and no --http address was given (stdio needs no token)")
	}
	return nil
}
