package main

import (
	"slices"
	"strings"
	"testing"
)

// invokedName finds the word cobra will look a subcommand up by, past the
// root's own flags (--color takes the next word as its value).
func TestInvokedName(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"run", "--", "ls"}, "run"},
		{[]string{"--color", "never", "run", "ls"}, "run"},
		{[]string{"--color=never", "mcp"}, "mcp"},
		{[]string{"-h"}, ""},
		{[]string{"--version"}, ""},
		{[]string{"--", "run"}, ""},
		{[]string{"help", "run"}, "help"},
		{[]string{"__complete", "run", "--mo"}, "__complete"},
		{[]string{"rnu"}, "rnu"},
	} {
		if got := invokedName(tc.args); got != tc.want {
			t.Errorf("invokedName(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// A named subcommand is the only one built; anything else — help,
// completion, a typo, no name — gets the whole tree.
func TestOnlyTheInvokedSubcommandIsBuilt(t *testing.T) {
	names := func(args ...string) []string {
		var out []string
		for _, c := range subcommandsFor(args) {
			out = append(out, c.Name())
		}
		return out
	}
	all := names()
	if len(all) != len(commands) {
		t.Fatalf("no name built %v, want all %d", all, len(commands))
	}
	for _, c := range commands {
		if got := names("--color", "never", c.name, "--help"); !slices.Equal(got, []string{c.name}) {
			t.Errorf("%s built %v", c.name, got)
		}
		if !slices.Contains(all, c.name) {
			t.Errorf("the table's %q is not the command's own name", c.name)
		}
	}
	for _, args := range [][]string{{"help"}, {"completion", "bash"}, {"__complete", ""}, {"rnu"}, {"--help"}} {
		if got := names(args...); len(got) != len(commands) {
			t.Errorf("%q built %v, want every subcommand", args, got)
		}
	}
}

// What the whole tree is for still works from the command line: the root's
// help lists every subcommand, a typo is told the nearest, completion
// offers them all, and a subcommand after the root's flag runs.
func TestWholeTreeWhereItIsNeeded(t *testing.T) {
	_, out, _ := cli(t, "", "", "--help")
	for _, c := range commands {
		if !strings.Contains(out, "\n  "+c.name+" ") {
			t.Errorf("root help does not list %s:\n%s", c.name, out)
		}
	}
	code, _, errOut := cli(t, "", "", "rnu")
	if code != exitUsage || !strings.Contains(errOut, "Did you mean this?") || !strings.Contains(errOut, "run") {
		t.Errorf("typo: exit %d, %q", code, errOut)
	}
	_, out, _ = cli(t, "", "", "__complete", "")
	for _, c := range commands {
		if !strings.Contains(out, c.name+"\t") && !strings.Contains(out, "\n"+c.name+"\n") && !strings.HasPrefix(out, c.name) {
			t.Errorf("completion does not offer %s:\n%s", c.name, out)
		}
	}
	if code, out, errOut := cli(t, "", "", "--color", "never", "version"); code != 0 || !strings.Contains(out, "ringfence") {
		t.Errorf("version after --color: exit %d, %q %q", code, out, errOut)
	}
}
