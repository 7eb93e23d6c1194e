package execpolicy

import (
	"errors"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

func TestCompileErrors(t *testing.T) {
	okRule := Rule{Prefix: []string{"mytool"}, Decision: "allow"}
	tests := []struct {
		name    string
		cfg     Config
		rule    int
		field   string
		example int
	}{
		{"bad capability", Config{Outcomes: map[string]string{"netwrk": "allow"}}, -1, "outcomes", -1},
		{"bad outcome", Config{Outcomes: map[string]string{"network": "maybe"}}, -1, "outcomes", -1},
		{"unknown allowed", Config{Outcomes: map[string]string{"unknown": "allow"}}, -1, "outcomes", -1},
		{"unknown allow-scoped", Config{Outcomes: map[string]string{"unknown": "allow-scoped"}}, -1, "outcomes", -1},
		{"empty prefix", Config{Rules: []Rule{okRule, {Decision: "deny"}}}, 1, "prefix", -1},
		{"empty program", Config{Rules: []Rule{{Prefix: []string{""}, Decision: "deny"}}}, 0, "prefix", -1},
		{"nul in prefix", Config{Rules: []Rule{{Prefix: []string{"a\x00"}, Decision: "deny"}}}, 0, "prefix", -1},
		{"bad decision", Config{Rules: []Rule{{Prefix: []string{"x"}, Decision: "allow-scoped"}}}, 0, "decision", -1},
		{"match fails", Config{Rules: []Rule{okRule, okRule, {Prefix: []string{"git", "push"}, Decision: "ask",
			Match: [][]string{{"git", "push"}, {"git", "pull", "secret-token-123"}}}}}, 2, "match", 1},
		{"match empty", Config{Rules: []Rule{{Prefix: []string{"git"}, Decision: "ask", Match: [][]string{{}}}}}, 0, "match", 0},
		{"not_match matches", Config{Rules: []Rule{{Prefix: []string{"git", "push"}, Decision: "deny",
			NotMatch: [][]string{{"git", "pull"}, {"/usr/bin/git", "push", "--force", "secret-token-123"}}}}}, 0, "not_match", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl, err := tt.cfg.Compile()
			if err == nil || cl != nil {
				t.Fatalf("Compile() = %v, %v; want an error", cl, err)
			}
			if !errors.Is(err, policy.ErrPolicy) {
				t.Errorf("error %v does not wrap policy.ErrPolicy", err)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Rule != tt.rule || ce.Field != tt.field || ce.Example != tt.example {
				t.Errorf("error = %#v, want rule %d field %s example %d", ce, tt.rule, tt.field, tt.example)
			}
			if strings.Contains(err.Error(), "secret-token") {
				t.Errorf("error message carries command text: %v", err)
			}
		})
	}
}

func TestCompileOutcomes(t *testing.T) {
	cl, err := Config{Outcomes: map[string]string{"network": "allow", "unknown": "deny", "modify": "ask-approval"}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		argv []string
		want Outcome
	}{
		{[]string{"git", "push"}, Allow},
		{[]string{"mytool"}, Deny},
		{[]string{"rm", "x"}, AskApproval},
		{[]string{"ls"}, Allow},
		{[]string{"rm", "-rf", "/"}, Deny},
	} {
		if got := cl.Classify(tt.argv); got.Outcome != tt.want {
			t.Errorf("%q: got %s, want %s", tt.argv, got.Outcome, tt.want)
		}
	}
	// The default classifier is not changed by compiling another.
	if got := Classify([]string{"git", "push"}); got.Outcome != AskApproval {
		t.Errorf("default classifier changed: git push is %s", got.Outcome)
	}
	if got := cl.Outcomes()[Network]; got != Allow {
		t.Errorf("Outcomes()[network] = %s", got)
	}
}

func TestRules(t *testing.T) {
	cl, err := Config{Rules: []Rule{
		{Prefix: []string{"mytool"}, Decision: "allow", Reason: "our build helper",
			Match: [][]string{{"mytool"}, {"/usr/bin/mytool", "x"}}, NotMatch: [][]string{{"./mytool"}, {"mytools"}}},
		{Prefix: []string{"git", "push"}, Decision: "deny", Match: [][]string{{"git", "push", "origin"}}},
		{Prefix: []string{"git"}, Decision: "allow"},
		{Prefix: []string{"sudo"}, Decision: "allow"},
		{Prefix: []string{"curl"}, Decision: "ask"},
	}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		argv    []string
		cap     Capability
		outcome Outcome
	}{
		// A rule vouching for an unrecognised program reports it as use:
		// unknown is never allowed.
		{[]string{"mytool", "--build"}, Use, Allow},
		{[]string{"./mytool"}, Use, Allow},                   // the working tree's file: not the rule's program
		{[]string{"git", "push", "origin"}, Network, Deny},   // first matching rule wins
		{[]string{"git", "fetch"}, Network, Allow},           // later rule
		{[]string{"sudo", "ls"}, Privilege, Allow},           // the rule decides sudo itself …
		{[]string{"sudo", "rm", "-rf", "/"}, Critical, Deny}, // … never what it runs
		{[]string{"bash", "-c", "mytool && git push"}, Network, Deny},
		{[]string{"bash", "-c", "mytool | curl x"}, Network, AskApproval},
		{[]string{"eval", "mytool"}, Unknown, AskApproval},
	}
	for _, tt := range tests {
		got := cl.Classify(tt.argv)
		if got.Capability != tt.cap || got.Outcome != tt.outcome {
			t.Errorf("%q: got %s/%s (%s), want %s/%s", tt.argv, got.Capability, got.Outcome, got.Reason, tt.cap, tt.outcome)
		}
		checkInvariants(t, strings.Join(tt.argv, " "), got)
	}
	if got := cl.Classify([]string{"mytool"}); !strings.Contains(got.Reason, "rule 0: our build helper") {
		t.Errorf("reason %q does not name the rule", got.Reason)
	}
}

func TestDefaultOutcomes(t *testing.T) {
	want := map[Capability]Outcome{
		Observe: Allow, Use: Allow, Modify: AllowScoped, Network: AskApproval, ServiceControl: AskApproval,
		PackageInstall: AskApproval, Privilege: Deny, Credential: AskApproval, Critical: Deny, Unknown: AskApproval,
	}
	got := DefaultOutcomes()
	if len(got) != len(want) {
		t.Fatalf("DefaultOutcomes has %d entries", len(got))
	}
	for c, o := range want {
		if got[c] != o || Default().Outcomes()[c] != o {
			t.Errorf("%s → %s, want %s", c, got[c], o)
		}
	}
	cl, err := Config{}.Compile()
	if err != nil || cl.Outcomes()[Unknown] != AskApproval {
		t.Fatalf("empty config: %v %v", cl, err)
	}
}

// A Classifier nobody built must not allow what the default would not.
func TestZeroClassifierIsDefault(t *testing.T) {
	var zero Classifier
	var nilCl *Classifier
	for _, cl := range []*Classifier{&zero, nilCl} {
		if got := cl.Classify([]string{"mytool"}); got.Outcome != AskApproval {
			t.Errorf("unknown program: %s", got.Outcome)
		}
		if got := cl.Classify([]string{"rm", "-rf", "/"}); got.Outcome != Deny {
			t.Errorf("rm -rf /: %s", got.Outcome)
		}
		if cl.Outcomes()[Unknown] != AskApproval {
			t.Error("Outcomes of a zero classifier are not the defaults")
		}
	}
}
