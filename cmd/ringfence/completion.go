package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/netproxy"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Flag values the shell completes (`ringfence completion bash|zsh|fish|
// powershell`, cobra's own command, installs the scripts). Each list is
// taken from where the value is parsed, so completion cannot offer a word
// the flag then refuses.

func modeValues() []string {
	var out []string
	for m := policy.ReadOnly; m.Valid(); m++ {
		out = append(out, m.String())
	}
	return out
}

func networkValues() []string {
	var out []string
	for n := policy.NetDeny; n.Valid(); n++ {
		out = append(out, n.String())
	}
	return out
}

func presetValues() []string {
	var out []string
	for name := range netproxy.Presets {
		out = append(out, "@"+name)
	}
	slices.Sort(out)
	return out
}

// valueCompletions maps a flag name to its values, with a few words each
// (shells that show descriptions show them; "value\tdescription").
func valueCompletions(cmdName string) map[string][]string {
	backend := append([]string{"auto\tthe strongest this host offers"}, ringfence.Backends...)
	if cmdName == "conformance" {
		backend = append(backend, "all\tevery backend available here")
	}
	return map[string][]string{
		"mode":         describe(modeValues(), map[string]string{"read-only": "nothing writable", "workspace-write": "the workspace and a private temp dir writable", "danger-full-access": "no confinement at all"}),
		"network":      describe(networkValues(), map[string]string{"deny": "no network at all", "loopback": "the sandbox's own loopback only", "domains": "named hosts through the policy proxy", "allow-all": "the host's network"}),
		"backend":      backend,
		"color":        describe(colorValues, map[string]string{"auto": "on a terminal, unless NO_COLOR is set", "always": "even into a pipe", "never": "plain text"}),
		"home":         {"private\treads the real home, writes land in a layer per workspace", "read-only\thome is read-only"},
		"allow-domain": presetValues(),
		"deny-domain":  presetValues(),
		"simulate":     {"no-userns\tas if user namespaces were refused"},
		"timeout":      {"30s", "2m", "10m", "1h"},
		"kill-after":   {"0", "2s", "10s"},
		"cpu-time":     {"30s", "2m", "10m"},
		"memory":       {"256M", "512M", "1G", "4G"},
		"tmp-size":     {"64M", "256M", "1G"},
		"outcome":      outcomeKinds(),
	}
}

// dirFlags take a directory; fileFlags a file. Completing them with the
// shell's own file completion (filtered) is what people expect.
var (
	dirFlags  = []string{"root", "home-share"}
	fileFlags = []string{"write", "read-only", "deny", "policy", "audit", "token-file", "token-out", "approver-token-file"}
)

func outcomeKinds() []string {
	var out []string
	for _, k := range outcome.Kinds() {
		out = append(out, string(k))
	}
	return out
}

func describe(values []string, words map[string]string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = v
		if w := words[v]; w != "" {
			out[i] += "\t" + w
		}
	}
	return out
}

// completeValues registers the completions of every flag of every
// subcommand that has a known set of values, or takes a path. A flag that
// has no such set (a number, a free name) completes nothing rather than
// file names. The values are computed when the shell asks, not here:
// every ringfence process builds the command tree, and building a table
// per subcommand was ~2% of a `ringfence run`'s CPU (issue 16).
func completeValues(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { registerCompletion(c, f.Name) })
		if c == root {
			c.PersistentFlags().VisitAll(func(f *pflag.Flag) { registerCompletion(c, f.Name) })
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// valueFlags are the keys of valueCompletions, for any command
// (TestValueFlagsAreTheTableKeys).
var valueFlags = []string{"mode", "network", "backend", "color", "home", "allow-domain", "deny-domain",
	"simulate", "timeout", "kill-after", "cpu-time", "memory", "tmp-size", "outcome"}

func registerCompletion(c *cobra.Command, name string) {
	if _, ok := c.GetFlagCompletionFunc(name); ok {
		return
	}
	var fn cobra.CompletionFunc
	switch {
	case slices.Contains(valueFlags, name):
		cmdName := c.Name()
		fn = func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var out []cobra.Completion
			for _, v := range valueCompletions(cmdName)[name] {
				if strings.HasPrefix(v, prefix) {
					out = append(out, v)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
	case slices.Contains(dirFlags, name):
		fn = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	case slices.Contains(fileFlags, name):
		fn = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault
		}
	default:
		return
	}
	_ = c.RegisterFlagCompletionFunc(name, fn)
}
