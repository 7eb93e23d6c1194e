package execpolicy

import "fmt"

// Capability is what a command does to the machine. The constants are in
// increasing order of consequence; Unknown comes last because a command the
// classifier cannot read is bounded by nothing it knows.
type Capability int

const (
	Observe        Capability = iota // reads files, prints information
	Use                              // runs project code or a tool inside the sandbox
	Modify                           // writes or deletes files
	Network                          // talks to another host
	ServiceControl                   // starts, stops or reconfigures a service or cluster
	PackageInstall                   // fetches and installs software
	Privilege                        // acts as another user or reaches past the sandbox
	Credential                       // reads or prints a secret
	Critical                         // can destroy the machine or its data
	Unknown                          // could not be read; never allowed
)

var capabilityNames = [...]string{
	"observe", "use", "modify", "network", "service-control",
	"package-install", "privilege", "credential", "critical", "unknown",
}

// numCapabilities sizes the outcome table.
const numCapabilities = len(capabilityNames)

// String returns the capability's policy-file name.
func (c Capability) String() string {
	if c < 0 || int(c) >= numCapabilities {
		return fmt.Sprintf("capability(%d)", int(c))
	}
	return capabilityNames[c]
}

// MarshalText implements encoding.TextMarshaler.
func (c Capability) MarshalText() ([]byte, error) {
	if c < 0 || int(c) >= numCapabilities {
		return nil, fmt.Errorf("execpolicy: invalid capability %d", int(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Capability) UnmarshalText(b []byte) error {
	v, ok := ParseCapability(string(b))
	if !ok {
		return fmt.Errorf("execpolicy: unknown capability name")
	}
	*c = v
	return nil
}

// ParseCapability returns the capability with the given name.
func ParseCapability(name string) (Capability, bool) {
	for i, n := range capabilityNames {
		if n == name {
			return Capability(i), true
		}
	}
	return 0, false
}

// Outcome is what a harness should do with a command. The constants are in
// increasing order of severity.
type Outcome int

const (
	Allow       Outcome = iota // run it
	AllowScoped                // run it; its writes stay inside the sandbox's writable roots
	AskApproval                // ask a person first
	Deny                       // refuse
)

var outcomeNames = [...]string{"allow", "allow-scoped", "ask-approval", "deny"}

// String returns the outcome's policy-file name.
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// MarshalText implements encoding.TextMarshaler.
func (o Outcome) MarshalText() ([]byte, error) {
	if o < 0 || int(o) >= len(outcomeNames) {
		return nil, fmt.Errorf("execpolicy: invalid outcome %d", int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, ok := ParseOutcome(string(b))
	if !ok {
		return fmt.Errorf("execpolicy: unknown outcome name")
	}
	*o = v
	return nil
}

// ParseOutcome returns the outcome with the given name.
func ParseOutcome(name string) (Outcome, bool) {
	for i, n := range outcomeNames {
		if n == name {
			return Outcome(i), true
		}
	}
	return 0, false
}

// DefaultOutcomes returns the built-in capability → outcome table.
//
// Why each entry is what it is:
//   - observe, use: allow. Reading and running project code is what an agent
//     is for; the sandbox confines what that code can reach.
//   - modify: allow-scoped. Writes are fine where the sandbox lets them land
//     (the writable roots); the confinement, not the classifier, enforces it.
//   - network, service-control, package-install, credential: ask-approval.
//     Each reaches something the sandbox cannot undo or cannot see (another
//     host, a daemon, the installed software, a secret), so a person decides.
//   - privilege, critical: deny. Acting as root or destroying a disk is never
//     a routine step of an agent's task.
//   - unknown: ask-approval, and it can never be made an allow.
func DefaultOutcomes() map[Capability]Outcome {
	m := make(map[Capability]Outcome, numCapabilities)
	for i, o := range defaultOutcomes {
		m[Capability(i)] = o
	}
	return m
}

var defaultOutcomes = [numCapabilities]Outcome{
	Observe:        Allow,
	Use:            Allow,
	Modify:         AllowScoped,
	Network:        AskApproval,
	ServiceControl: AskApproval,
	PackageInstall: AskApproval,
	Privilege:      Deny,
	Credential:     AskApproval,
	Critical:       Deny,
	Unknown:        AskApproval,
}
