package policy

import (
	"strconv"
	"strings"
)

// The names below are the stable spellings used in policy files, flags,
// JSON and audit records. They never change meaning once published.
var (
	modeNames    = []string{"read-only", "workspace-write", "danger-full-access"}
	accessNames  = []string{"deny", "read", "write"}
	originNames  = []string{"mode", "protected", "deployment", "request", "approval"}
	networkNames = []string{"deny", "loopback", "domains", "allow-all"}
)

// name returns names[i], or kind(i) for a value outside the known range so
// a corrupted value is visible rather than printed as a valid one.
func name(names []string, kind string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return kind + "(" + strconv.Itoa(i) + ")"
}

// parseName finds text in names, or reports the valid spellings.
func parseName(names []string, field, text string) (int, error) {
	for i, n := range names {
		if n == text {
			return i, nil
		}
	}
	return 0, &InvalidError{Field: field, Value: text, Reason: "want one of " + strings.Join(names, ", ")}
}

// marshalName is MarshalText for an enumeration: an out-of-range value is an
// error, never a made-up name.
func marshalName(names []string, field string, i int) ([]byte, error) {
	if i < 0 || i >= len(names) {
		return nil, &InvalidError{Field: field, Value: strconv.Itoa(i), Reason: "out of range"}
	}
	return []byte(names[i]), nil
}

func (m Mode) String() string { return name(modeNames, "mode", int(m)) }

// Valid reports whether m is one of the defined modes.
func (m Mode) Valid() bool { return m >= ReadOnly && m <= DangerFullAccess }

// MarshalText writes the mode's stable name.
func (m Mode) MarshalText() ([]byte, error) { return marshalName(modeNames, "mode", int(m)) }

// UnmarshalText reads a mode's stable name.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	*m = v
	return err
}

// ParseMode reads "read-only", "workspace-write" or "danger-full-access".
func ParseMode(s string) (Mode, error) {
	i, err := parseName(modeNames, "mode", s)
	return Mode(i), err
}

func (a Access) String() string { return name(accessNames, "access", int(a)) }

// Valid reports whether a is one of the defined accesses.
func (a Access) Valid() bool { return a >= Deny && a <= Write }

// MarshalText writes the access's stable name.
func (a Access) MarshalText() ([]byte, error) { return marshalName(accessNames, "access", int(a)) }

// UnmarshalText reads an access's stable name.
func (a *Access) UnmarshalText(b []byte) error {
	v, err := ParseAccess(string(b))
	*a = v
	return err
}

// ParseAccess reads "deny", "read" or "write".
func ParseAccess(s string) (Access, error) {
	i, err := parseName(accessNames, "access", s)
	return Access(i), err
}

func (o Origin) String() string { return name(originNames, "origin", int(o)) }

// MarshalText writes the origin's stable name.
func (o Origin) MarshalText() ([]byte, error) { return marshalName(originNames, "origin", int(o)) }

// UnmarshalText reads an origin's stable name.
func (o *Origin) UnmarshalText(b []byte) error {
	v, err := ParseOrigin(string(b))
	*o = v
	return err
}

// ParseOrigin reads "mode", "protected", "deployment", "request" or "approval".
func ParseOrigin(s string) (Origin, error) {
	i, err := parseName(originNames, "origin", s)
	return Origin(i), err
}

func (n NetworkMode) String() string { return name(networkNames, "network", int(n)) }

// Valid reports whether n is one of the defined network modes.
func (n NetworkMode) Valid() bool { return n >= NetDeny && n <= NetAllowAll }

// MarshalText writes the network mode's stable name.
func (n NetworkMode) MarshalText() ([]byte, error) {
	return marshalName(networkNames, "network", int(n))
}

// UnmarshalText reads a network mode's stable name.
func (n *NetworkMode) UnmarshalText(b []byte) error {
	v, err := ParseNetworkMode(string(b))
	*n = v
	return err
}

// ParseNetworkMode reads "deny", "loopback", "domains" or "allow-all".
func ParseNetworkMode(s string) (NetworkMode, error) {
	i, err := parseName(networkNames, "network", s)
	return NetworkMode(i), err
}
