package outcome

import (
	"strconv"
	"strings"
)

// Audience is who reads the narration, so that its advice names the knobs
// that reader actually has. A model calling tools (MCP, the Go tools API)
// sets a timeout with timeout_seconds and can only ask its user for more;
// a person at `ringfence run` passes --timeout or --memory and is the one
// who decides. The facts are the same for both; only the advice differs.
type Audience string

const (
	// AudienceModel (the zero value) words advice in tool-argument terms.
	AudienceModel Audience = ""
	// AudienceCLI words advice in ringfence's command-line flags.
	AudienceCLI Audience = "cli"
)

// phrase names one piece of audience-dependent wording.
type phrase int

const (
	phTimeoutName phrase = iota // how the call's own timeout is named
	phTimeoutAdvice
	phWallClockAdvice
	phAborted
	phRaiseMemory
	phRaiseProcesses
	phRaiseCPU
	phOutputAdvice // followed by the mount path
	phWiderPolicy
	phWriteNothing
	phNetDeny
	phNetLoopback
	phNetOther
	phAllowDomain // followed by the host
	phDeniedDomain
	phRunnerAdvice
	phUnavailableAdvice
	phProtectedAdvice
	phCount
)

// phrases holds, for each phrase, the model's words and the CLI's. A test
// walks the table: every phrase has both, the CLI's never name a tool
// argument or "the call", and the model's never name a flag.
var phrases = [phCount][2]string{
	phTimeoutName: {"timeout_seconds", "--timeout"},
	phTimeoutAdvice: {
		"Give a larger timeout_seconds if it needs longer, or do less per call; nothing started in the background survives.",
		"Give a larger --timeout if it needs longer, or do less per run; nothing started in the background survives.",
	},
	phWallClockAdvice: {
		"That limit cannot be raised from a tool call; split the work into shorter commands.",
		"It is the policy's [limits] wall_clock; split the work into shorter commands, or raise that limit in the policy file.",
	},
	phAborted: {
		"The call was cancelled before it finished, and everything it started was stopped. " +
			"Any output shown is partial. Do not assume it took effect.",
		"ringfence was interrupted before the command finished, and everything it started was stopped. " +
			"Any output shown is partial. Do not assume it took effect.",
	},
	phRaiseMemory:    {"ask the user to raise the limit.", "raise the limit with --memory."},
	phRaiseProcesses: {"ask the user to raise the limit.", "raise the limit with --pids."},
	phRaiseCPU:       {"ask the user to raise the limit.", "raise the limit with --cpu-time."},
	phOutputAdvice: {
		"Print less (filter with grep or head), or write the output to a file under ",
		"Run it without --json (live output is not capped), print less, or write the output to a file under ",
	},
	phWiderPolicy: {"ask the user to approve a wider policy.", "allow more with --write PATH or a wider --mode."},
	phWriteNothing: {
		"Change the command to write nothing, or ask the user to approve a wider policy.",
		"Change the command to write nothing, or run it with --mode workspace-write or --write PATH.",
	},
	phNetDeny: {
		"If the task needs the network, ask the user to approve a wider network mode (loopback for servers the command starts itself, " +
			"named domains or allow-all for the internet)",
		"If it needs the network, run it with a wider --network (loopback for servers the command starts itself), " +
			"--allow-domain HOST for named hosts, or --network allow-all for the internet",
	},
	phNetLoopback: {
		"If the task needs them, ask the user to approve a wider network mode (named domains or allow-all)",
		"If it needs them, run it with --allow-domain HOST for named hosts, or --network allow-all",
	},
	phNetOther: {
		"If the task needs more of the network, ask the user to approve a wider network mode",
		"If it needs more of the network, run it with a wider --network or more --allow-domain rules",
	},
	phAllowDomain:  {"Ask the user to allow it.", "If it is needed, allow it with --allow-domain "},
	phDeniedDomain: {"Do not try to reach it another way; ask the user if it is needed.", "A deny rule wins over every allow rule; remove it from the policy if the host is needed."},
	phRunnerAdvice: {
		"This is not an error in your command; do not rewrite it. " +
			"Tell the user the sandbox failed to start; retrying unchanged may work if the failure was transient.",
		"This is not an error in the command; do not rewrite it. " +
			"`ringfence doctor` shows what this host enforces; retrying unchanged may work if the failure was transient.",
	},
	phProtectedAdvice: {
		"leave it unchanged, or ask the user to make that change themselves.",
		"leave it unchanged, or make that change outside the sandbox if it is intended.",
	},
	phUnavailableAdvice: {
		"This is not an error in your request; tell the user the sandbox is unavailable here.",
		"This is not an error in the command; `ringfence doctor` shows what this host lacks, and --backend names another backend.",
	},
}

// say is phrase p in c's audience. An unknown audience gets the model's
// words: they are the conservative ones (they promise no flag).
func (c Context) say(p phrase) string {
	if c.Audience == AudienceCLI {
		return phrases[p][1]
	}
	return phrases[p][0]
}

// unitOfWork is what a model or a person does again with less in it.
func (c Context) unitOfWork() string {
	if c.Audience == AudienceCLI {
		return "run"
	}
	return "call"
}

// allowDomain is the advice for a host the allow-list did not name.
func (c Context) allowDomain(host string) string {
	if c.Audience == AudienceCLI {
		return c.say(phAllowDomain) + clean(host) + "."
	}
	return c.say(phAllowDomain)
}

// seconds is a duration given in whole seconds, in c's audience's units:
// "30 seconds" beside timeout_seconds for a model, "2m30s" (the syntax
// --timeout takes) for the command line.
func (c Context) seconds(n int64) string {
	if c.Audience == AudienceCLI {
		return humanSeconds(n)
	}
	if n == 1 {
		return "1 second"
	}
	return n64(n) + " seconds"
}

// humanSeconds writes n seconds as Go's duration syntax without zero
// parts: 45s, 2m30s, 1h, 1h5m.
func humanSeconds(n int64) string {
	if n <= 0 {
		return "0s"
	}
	var b strings.Builder
	if h := n / 3600; h > 0 {
		b.WriteString(strconv.FormatInt(h, 10) + "h")
	}
	if m := n % 3600 / 60; m > 0 {
		b.WriteString(strconv.FormatInt(m, 10) + "m")
	}
	if s := n % 60; s > 0 {
		b.WriteString(strconv.FormatInt(s, 10) + "s")
	}
	return b.String()
}

// humanBytes writes a size in binary units: 512 bytes, 64 KiB, 50 MiB,
// 1.5 GiB. A size that is not a whole number of its unit is shown to one
// decimal, rounded down, so "at least" and "over the limit of" never
// overstate.
func humanBytes(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		if n == 1 {
			return "1 byte"
		}
		return n64(n) + " bytes"
	}
	unit, i := int64(1024), 0
	for i+1 < len(units) && n/unit >= 1024 {
		unit *= 1024
		i++
	}
	name := " " + units[i:i+1] + "iB"
	if n%unit == 0 {
		return n64(n/unit) + name
	}
	tenths := n % unit / (unit / 1024) * 10 / 1024 // floor; no overflow at EiB
	return n64(n/unit) + "." + strconv.FormatInt(tenths, 10) + name
}
