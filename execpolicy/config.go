package execpolicy

// Config is the part of a policy file that adjusts command classification.
// It is data, decoded from TOML or JSON by the policy file loader; Compile
// checks it (every rule's examples must match, every counter-example must
// not) before it can be used.
type Config struct {
	// Outcomes maps a capability name ("observe", "network", …) to an
	// outcome name ("allow", "allow-scoped", "ask-approval", "deny").
	Outcomes map[string]string `toml:"outcomes" json:"outcomes,omitempty"`
	// Rules are extra prefix rules, checked before the built-in table.
	Rules []Rule `toml:"rule" json:"rules,omitempty"`
}

// Rule decides every command whose argv starts with Prefix.
type Rule struct {
	Prefix   []string   `toml:"prefix" json:"prefix"`
	Decision string     `toml:"decision" json:"decision"` // "allow" | "ask" | "deny"
	Reason   string     `toml:"reason" json:"reason,omitempty"`
	Match    [][]string `toml:"match" json:"match,omitempty"`        // argvs that must match
	NotMatch [][]string `toml:"not_match" json:"notMatch,omitempty"` // argvs that must not
}
