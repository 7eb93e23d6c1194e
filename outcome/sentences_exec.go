package outcome

import (
	"strconv"
	"strings"
)

func narrateOutsideWriteRoot(o Outcome, c Context) string {
	text := "Writing " + quote(o.Path) + " was refused: "
	roots := writeRoots(o, c)
	if len(roots) == 0 {
		if c.Audience == AudienceCLI {
			return text + "nothing is writable" + inMode(c) + ". Allow it with --write PATH or --mode workspace-write if the write is needed."
		}
		return text + "nothing is writable" + inMode(c) + ". Ask the user to approve a wider policy if the write is needed."
	}
	return text + "it is outside the writable roots " + rootList(o, c) + ". Write under " + clean(roots[0]) +
		", or " + c.say(phWiderPolicy) + tmpNote(c)
}

func writeRoots(o Outcome, c Context) []string {
	if len(o.WriteRoots) > 0 {
		return o.WriteRoots
	}
	return c.WriteRoots
}

// rootList shows the writable roots in parentheses, bounded; callers
// narrate the case of no roots themselves.
func rootList(o Outcome, c Context) string { return "(" + list(writeRoots(o, c)) + ")" }

func list(items []string) string {
	shown := make([]string, 0, maxListed)
	for _, it := range items[:min(len(items), maxListed)] {
		shown = append(shown, clean(it))
	}
	text := strings.Join(shown, ", ")
	if rest := len(items) - len(shown); rest > 0 {
		text += ", and " + strconv.Itoa(rest) + " more"
	}
	return text
}

var pathReasons = map[string]string{
	"empty":     "it is empty",
	"dot":       "it names the workspace itself, not something in it",
	"absolute":  "it is absolute, and paths are relative to the workspace",
	"drive":     "it names a drive",
	"home":      "it starts with ~, which is not expanded",
	"backslash": "it contains a backslash; separate names with /",
	"nul":       "it contains a NUL byte",
	"escape":    "its .. climbs out of the workspace",
}

func narratePathRejected(o Outcome, c Context) string {
	why, ok := pathReasons[o.Reason]
	if !ok {
		why = "it is not a valid workspace path (" + clean(o.Reason) + ")"
	}
	return "The path " + quote(o.Path) + " was refused before anything was done: " + why +
		". Give a path relative to the workspace (" + clean(c.mount()) + "), such as src/main.go."
}

func narrateViolation(o Outcome, c Context) string {
	if len(o.Blocked) > 0 {
		return narrateBlocked(o, c)
	}
	var text string
	switch {
	case isSIGSYS(o.Signal):
		text = "The sandbox stopped the command with SIGSYS: it made a system call the sandbox forbids (seccomp)."
	case o.ExitCode != nil && *o.ExitCode == 0:
		text = "The command exited with code 0, but the sandbox refused part of what it did."
	case o.ExitCode != nil:
		text = "The sandbox refused part of what the command did, and it exited with code " + strconv.Itoa(*o.ExitCode) + "."
	default:
		text = "The sandbox refused part of what the command did."
	}
	if len(o.Violations) > 0 {
		text += " Refused: " + strings.ReplaceAll(list(o.Violations), ", ", "; ") + "."
	}
	if len(o.Protected) > 0 {
		text += " " + protectedAdvice(o, c)
		if o.Unprotected == 0 {
			return text
		}
	}
	lead := " It ran confined"
	if o.Network != "" {
		text += " " + networkAdvice(o.Network, c)
		if onlyNetwork(o.Violations) {
			return text
		}
		lead = " Its files were confined"
	}
	if len(writeRoots(o, c)) == 0 {
		return text + lead + inMode(c) + " with nothing writable. " + c.say(phWriteNothing)
	}
	return text + lead + inMode(c) + " with writable roots " + rootList(o, c) +
		". Change the command to stay within them, or " + c.say(phWiderPolicy) + tmpNote(c)
}

// tmpNote says, in one sentence, that a private /tmp does not keep what
// is written there: a command that saved its result to /tmp would
// otherwise look for it in vain on the next call.
func tmpNote(c Context) string {
	if !c.PrivateTmp {
		return ""
	}
	return " Files written to /tmp outside $TMPDIR are discarded when the command ends."
}

func narrateNonzeroExit(o Outcome, _ Context) string {
	const own = " This is the command's own result, not a sandbox refusal; its output says more."
	switch {
	case o.Detail != "":
		return "The command could not be run: " + clean(o.Detail) + "." + own
	case o.Signal != "":
		return "The command was killed by signal " + clean(o.Signal) + "." + own
	case o.ExitCode != nil:
		return "The command ran and exited with code " + strconv.Itoa(*o.ExitCode) + "." + own
	}
	return "The command failed." + own
}

func narrateTimedOut(o Outcome, c Context) string {
	const stopped = " and was stopped, with everything it started."
	switch o.Bound {
	case BoundWallClock:
		return "The command ran past the deployment's wall-clock limit" + ofSeconds(o.Limit, c) + stopped +
			" " + c.say(phWallClockAdvice)
	case BoundTimeout:
		return "The command did not finish within its timeout" + ofSeconds(o.Limit, c) + " (" + c.say(phTimeoutName) + ")" + stopped +
			" " + c.say(phTimeoutAdvice)
	}
	subject := "The call"
	if c.Audience == AudienceCLI {
		subject = "The command"
	}
	return subject + " did not finish within its time limit" + ofSeconds(o.Limit, c) + stopped
}

func narrateOverBudget(o Outcome, c Context) string {
	const stopped = "The command was stopped: "
	switch o.Bound {
	case BoundMemory:
		return stopped + "it used more memory than its limit" + ofBytes(o.Limit) + seenBytes(o.Observed, "in use") +
			". Process the data in smaller pieces, or " + c.say(phRaiseMemory)
	case BoundProcesses:
		return stopped + "it started more processes than its limit" + of(o.Limit, "") + seen(o.Observed, "running, ringfence's own runner included") +
			". Run fewer processes at once (lower the parallelism), or " + c.say(phRaiseProcesses)
	case BoundCPU:
		return stopped + "it used more CPU time than its limit" + ofSeconds(o.Limit, c) +
			". Do less work per " + c.unitOfWork() + " (smaller input, fewer iterations), or " + c.say(phRaiseCPU)
	case BoundOutput:
		return stopped + "its output passed the ceiling" + ofBytes(o.Limit) + seenBytes(o.Observed, "produced") +
			". " + c.say(phOutputAdvice) + clean(c.mount()) + " and read parts of it."
	}
	return readBudget(o)
}

// readBudget narrates a result refused (not cut) for its size.
func readBudget(o Outcome) string {
	subject := "The result"
	if o.Path != "" {
		subject = quote(o.Path)
	}
	text := subject + " is too large to return"
	if o.Observed > 0 {
		text = subject + " is at least " + n64(o.Observed) + " bytes"
	}
	text += ", over the limit" + of(o.Limit, "bytes")
	if o.Bound != "" {
		text += " (" + clean(o.Bound) + ")"
	}
	text += ", so it was not returned. Read part of it with offset and limit"
	if o.Limit > 0 {
		text += " (for example limit " + n64(o.Limit) + ")"
	}
	return text + ", or search it with grep."
}

// of is " of N unit", or "" when the limit is unknown.
func of(n int64, unit string) string {
	if n <= 0 {
		return ""
	}
	if unit == "" {
		return " of " + n64(n)
	}
	if n == 1 {
		unit = strings.TrimSuffix(unit, "s") // "1 second", "1 byte"
	}
	return " of " + n64(n) + " " + unit
}

// ofBytes is " of 50 MiB", or "" when the limit is unknown.
func ofBytes(n int64) string {
	if n <= 0 {
		return ""
	}
	return " of " + humanBytes(n)
}

// ofSeconds is " of 30 seconds" (model) or " of 30s" (CLI), or "".
func ofSeconds(n int64, c Context) string {
	if n <= 0 {
		return ""
	}
	return " of " + c.seconds(n)
}

// seenBytes is " (at least 515.9 MiB in use)", or "".
func seenBytes(n int64, what string) string {
	if n <= 0 {
		return ""
	}
	return " (at least " + humanBytes(n) + " " + what + ")"
}

func seen(n int64, what string) string {
	if n <= 0 {
		return ""
	}
	return " (at least " + n64(n) + " " + what + ")"
}

// networkAdvice says which network mode refused a lookup or a connection,
// what that mode reaches, and how to get more: only a person can widen it.
func networkAdvice(mode string, c Context) string {
	const retry = "; retrying the same command will fail the same way."
	switch mode {
	case NetworkDeny:
		return "It ran with network mode deny: the sandbox has no network at all, not even loopback, so every lookup and connection fails. " +
			c.say(phNetDeny) + retry
	case NetworkProxyOnly:
		return "It ran with network mode domains on a backend without a network namespace: only the policy proxy reaches the network, " +
			"through the proxy variables set in its environment (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY), and this program connected or looked up a name directly, " +
			"ignoring them, which is refused. Use a client that honours the proxy variables (curl, git, pip, npm and Go do), or point this one at them; " +
			"if a host it needs is not in the allowed domains, ask the user to allow it" + retry
	case NetworkLoopback:
		return "It ran with network mode loopback: only the sandbox's own loopback (localhost, 127.0.0.1) is reachable, so names and addresses beyond it fail. " +
			c.say(phNetLoopback) + retry
	}
	return "It ran with network mode " + clean(mode) + ", which refused the connection. " +
		c.say(phNetOther) + retry
}

// onlyNetwork reports whether every refusal listed is a network one, so
// the advice about writable roots would be beside the point.
func onlyNetwork(vs []string) bool {
	for _, v := range vs {
		if v != ReasonNetworkDenied && !strings.HasPrefix(v, ReasonNetworkDenied+": ") {
			return false
		}
	}
	return len(vs) > 0
}

// protectedAdvice names the paths refused because the sandbox holds them
// by name (git hooks and config, shell and agent start-up files …): being
// inside a writable root does not help, so "stay within the writable
// roots" would send the model in circles.
func protectedAdvice(o Outcome, c Context) string {
	return "The sandbox holds " + strings.Join(o.Protected, ", ") + " read-only wherever it is, even inside a writable root," +
		" because the host runs or loads such files later (a hook, a start-up or editor file): " + c.say(phProtectedAdvice)
}
