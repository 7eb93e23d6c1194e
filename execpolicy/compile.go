package execpolicy

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ringfence/ringfence/policy"
)

// Classifier classifies commands with one outcome table and one set of
// prefix rules. It is immutable once built and safe for concurrent use.
// The zero Classifier (and a nil one) behaves as Default: an all-zero
// outcome table would allow everything, unknown included.
type Classifier struct {
	built    bool
	outcomes [numCapabilities]Outcome
	rules    []compiledRule
}

// orDefault returns c, or the default classifier when c was not built by
// Compile or Default.
func (c *Classifier) orDefault() *Classifier {
	if c == nil || !c.built {
		return defaultClassifier
	}
	return c
}

type compiledRule struct {
	index   int
	prefix  []string
	outcome Outcome
	reason  string
}

var defaultClassifier = &Classifier{built: true, outcomes: defaultOutcomes}

// Default returns the classifier with the built-in table, the default
// outcomes and no extra rules.
func Default() *Classifier { return defaultClassifier }

// Classify classifies argv with the default classifier.
func Classify(argv []string) Classification { return defaultClassifier.Classify(argv) }

// Outcomes returns the classifier's capability → outcome table.
func (c *Classifier) Outcomes() map[Capability]Outcome {
	m := make(map[Capability]Outcome, numCapabilities)
	for i, o := range c.orDefault().outcomes {
		m[Capability(i)] = o
	}
	return m
}

// ConfigError says which part of a Config is unusable. It never carries a
// command: an example is named by its index.
type ConfigError struct {
	Rule    int    // index into Config.Rules, or -1 for Config.Outcomes
	Field   string // "outcomes", "prefix", "decision", "match", "not_match"
	Example int    // index into Match or NotMatch, or -1
	Problem string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("execpolicy: ")
	if e.Rule >= 0 {
		fmt.Fprintf(&b, "rule %d: ", e.Rule)
	}
	b.WriteString(e.Field)
	if e.Example >= 0 {
		fmt.Fprintf(&b, " example %d", e.Example)
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	return b.String()
}

// Unwrap makes every ConfigError an policy.ErrPolicy.
func (e *ConfigError) Unwrap() error { return policy.ErrPolicy }

// Compile checks c and returns a classifier. The outcome table is the
// default one overridden by c.Outcomes; c.Rules are checked, in order,
// before the built-in table. Every rule's Match examples must match its
// prefix and no NotMatch example may, so a typo fails here rather than
// silently never matching. Mapping unknown to allow or allow-scoped is an
// error: a command nobody could read is never run without a person.
func (c Config) Compile() (*Classifier, error) {
	cl := &Classifier{built: true, outcomes: defaultOutcomes}
	if err := cl.setOutcomes(c.Outcomes); err != nil {
		return nil, err
	}
	for i, r := range c.Rules {
		cr, err := compileRule(i, r)
		if err != nil {
			return nil, err
		}
		cl.rules = append(cl.rules, cr)
	}
	return cl, nil
}

func (cl *Classifier) setOutcomes(m map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic: the first bad name is always the same
	for _, k := range keys {
		capab, ok := ParseCapability(k)
		if !ok {
			return &ConfigError{Rule: -1, Field: "outcomes", Example: -1, Problem: fmt.Sprintf("unknown capability %q", k)}
		}
		o, ok := ParseOutcome(m[k])
		if !ok {
			return &ConfigError{Rule: -1, Field: "outcomes", Example: -1, Problem: fmt.Sprintf("unknown outcome %q for %s", m[k], k)}
		}
		if capab == Unknown && o < AskApproval {
			return &ConfigError{Rule: -1, Field: "outcomes", Example: -1, Problem: "unknown may only map to ask-approval or deny"}
		}
		cl.outcomes[capab] = o
	}
	return nil
}

var ruleDecisions = sync.OnceValue(func() map[string]Outcome {
	return map[string]Outcome{"allow": Allow, "ask": AskApproval, "deny": Deny}
})

func compileRule(i int, r Rule) (compiledRule, error) {
	bad := func(field string, ex int, problem string) error {
		return &ConfigError{Rule: i, Field: field, Example: ex, Problem: problem}
	}
	if len(r.Prefix) == 0 || r.Prefix[0] == "" {
		return compiledRule{}, bad("prefix", -1, "must name a program")
	}
	for _, p := range r.Prefix {
		if strings.ContainsRune(p, 0) {
			return compiledRule{}, bad("prefix", -1, "contains a NUL byte")
		}
	}
	o, ok := ruleDecisions()[r.Decision]
	if !ok {
		return compiledRule{}, bad("decision", -1, `must be "allow", "ask" or "deny"`)
	}
	cr := compiledRule{index: i, prefix: append([]string(nil), r.Prefix...), outcome: o, reason: r.Reason}
	for j, ex := range r.Match {
		if !cr.matches(ex) {
			return compiledRule{}, bad("match", j, "does not match the prefix")
		}
	}
	for j, ex := range r.NotMatch {
		if cr.matches(ex) {
			return compiledRule{}, bad("not_match", j, "matches the prefix")
		}
	}
	return cr, nil
}

// matches reports whether argv starts with the rule's prefix. The program is
// compared by name: "git" matches "git" and "/usr/bin/git", never "./git"
// (a file in the working tree is not the system's git).
func (r compiledRule) matches(argv []string) bool {
	if len(argv) < len(r.prefix) || len(argv) == 0 {
		return false
	}
	if argv[0] != r.prefix[0] {
		name, ok := systemName(argv[0])
		if !ok || strings.Contains(r.prefix[0], "/") || name != r.prefix[0] {
			return false
		}
	}
	for k := 1; k < len(r.prefix); k++ {
		if argv[k] != r.prefix[k] {
			return false
		}
	}
	return true
}

// rule returns the first rule matching argv, or nil.
func (c *Classifier) rule(argv []string) *compiledRule {
	for i := range c.rules {
		if c.rules[i].matches(argv) {
			return &c.rules[i]
		}
	}
	return nil
}
