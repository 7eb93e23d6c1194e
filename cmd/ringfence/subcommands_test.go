package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// argvShapes are command lines whose subcommand lookup is not plain: root
// flags with and without values, help flags before a name (cobra takes the
// next word as their value), subcommand flags before the name, help,
// completion, typos.
var argvShapes = [][]string{
	nil, {""}, {"-"}, {"--"}, {"--", "run"},
	{"run", "--", "ls"}, {"run", "--help"}, {"version"},
	{"--color", "never", "run", "ls"}, {"--color=never", "mcp"}, {"--color", "never"},
	{"-h"}, {"--help"}, {"-h", "run"}, {"--help", "mcp"}, {"-h", "run", "mcp"}, {"-hv"},
	{"--version"}, {"-v", "run"},
	{"--policy", "audit", "run", "true"}, {"--write", "cache", "run", "true"}, {"--policy=p", "run"},
	{"help"}, {"help", "run"}, {"completion", "bash"}, {"__complete", "run", "--mo"},
	{"__completeNoDesc", ""}, {"rnu"}, {"policy", "explain"},
}

// The lazily built tree runs the command the whole tree would: for every
// shape, the top-level command cobra finds in the whole tree (as Execute
// looks it up, with help and completion added) is among those built, and
// a found subcommand is built alone.
func TestLazyTreeRunsWhatTheWholeTreeWould(t *testing.T) {
	for _, args := range argvShapes {
		whole := newRoot(subcommands())
		whole.InitDefaultHelpCmd()
		whole.InitDefaultCompletionCmd(args...)
		found, _, err := whole.Find(args)
		top := ""
		for c := found; err == nil && c != nil && c.HasParent(); c = c.Parent() {
			top = c.Name()
		}
		var built []string
		for _, c := range subcommandsFor(args) {
			built = append(built, c.Name())
		}
		known := slices.ContainsFunc(commands, func(c struct {
			name string
			make func() *cobra.Command
		}) bool {
			return c.name == top
		})
		switch {
		case known && !slices.Equal(built, []string{top}):
			t.Errorf("%q: the whole tree runs %s; built %v", args, top, built)
		case !known && len(built) != len(commands):
			t.Errorf("%q: the whole tree finds %q (%v); built only %v", args, top, err, built)
		}
	}
}

// Every table entry is its command's own name, and no name builds all.
func TestCommandTableNamesTheCommands(t *testing.T) {
	all := subcommands()
	for i, c := range commands {
		if all[i].Name() != c.name {
			t.Errorf("table entry %q builds %q", c.name, all[i].Name())
		}
	}
	if got := subcommandsFor(nil); len(got) != len(commands) {
		t.Errorf("no name built %d commands", len(got))
	}
}

// What the whole tree is for still works from the command line: the root's
// help lists every subcommand, a typo is told the nearest, completion
// offers them all, and a subcommand after the root's flag runs.
func TestWholeTreeWhereItIsNeeded(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h", "run"}} {
		_, out, _ := cli(t, "", "", args...)
		for _, c := range commands {
			if !strings.Contains(out, "\n  "+c.name+" ") {
				t.Errorf("%q: root help does not list %s:\n%s", args, c.name, out)
			}
		}
	}
	code, _, errOut := cli(t, "", "", "rnu")
	if code != exitUsage || !strings.Contains(errOut, "Did you mean this?") || !strings.Contains(errOut, "run") {
		t.Errorf("typo: exit %d, %q", code, errOut)
	}
	_, out, _ := cli(t, "", "", "__complete", "")
	for _, c := range commands {
		if !strings.Contains(out, c.name+"\t") && !strings.Contains(out, "\n"+c.name+"\n") && !strings.HasPrefix(out, c.name) {
			t.Errorf("completion does not offer %s:\n%s", c.name, out)
		}
	}
	if code, out, errOut := cli(t, "", "", "--color", "never", "version"); code != 0 || !strings.Contains(out, "ringfence") {
		t.Errorf("version after --color: exit %d, %q %q", code, out, errOut)
	}
}
