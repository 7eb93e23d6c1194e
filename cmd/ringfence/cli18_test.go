package main

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/tools"
)

func TestVersionFrom(t *testing.T) {
	vcs := func(rev, when, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: when}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		name, ldflag string
		info         *debug.BuildInfo
		want         string
	}{
		{"ldflags win", "v9.9.9", &debug.BuildInfo{Main: debug.Module{Version: "v1.0.0"}}, "v9.9.9"},
		{"go install @tag", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"go install @commit", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201170000-0123456789ab"}}, "v0.0.0-20261201170000-0123456789ab"},
		{"go build in a checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "2026-12-01T17:00:00Z", "false")},
			"devel 0123456789ab (2026-12-01T17:00:00Z)"},
		{"dirty checkout", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "", "true")}, "devel 0123456789ab-dirty"},
		{"nothing known", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "(devel)"},
		{"no build info", "", nil, "(devel)"},
	} {
		if got := versionFrom(tc.ldflag, tc.info); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// --version and `version` print the same line.
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-v"}, {"version"}} {
		code, out, errOut := cli(t, "", "", args...)
		if code != 0 || out != versionLine() || !strings.HasPrefix(out, "ringfence ") || errOut != "" {
			t.Errorf("%v: exit %d, %q %q (want %q)", args, code, out, errOut, versionLine())
		}
	}
}

func TestUseColor(t *testing.T) {
	for _, tc := range []struct {
		mode          colorMode
		noColor, term string
		tty, want     bool
	}{
		{"auto", "", "xterm", true, true},
		{"auto", "", "xterm", false, false}, // a pipe or a file
		{"auto", "1", "xterm", true, false}, // NO_COLOR
		{"auto", "", "dumb", true, false},
		{"always", "1", "dumb", false, true}, // the person's explicit choice
		{"never", "", "xterm", true, false},
		{"", "", "xterm", true, true}, // unset: auto
	} {
		if got := useColor(tc.mode, tc.noColor, tc.term, tc.tty); got != tc.want {
			t.Errorf("%+v: %v", tc, got)
		}
	}
	var m colorMode
	if err := m.Set("sometimes"); err == nil {
		t.Error("--color=sometimes accepted")
	}
	if code, _, errOut := cli(t, "", "", "--color", "sometimes", "version"); code != exitUsage || !strings.Contains(errOut, "want auto, always or never") {
		t.Errorf("--color sometimes: exit %d, %q", code, errOut)
	}
}

const (
	redPrefix  = sgrError + "ringfence:" + sgrReset
	notePrefix = sgrNote + "[ringfence]" + sgrReset
)

// The note after a refused run is painted with --color=always and plain
// otherwise; the command's own stderr is never painted.
func TestColorNote(t *testing.T) {
	needBackend(t, "auto")
	ws := workspace(t)
	for _, mode := range []string{"always", "never", "auto"} {
		code, _, errOut := cli(t, ws, "", "--color="+mode, "run", "--", "sh", "-c", "touch /etc/ringfence-color-probe")
		if code == 0 {
			t.Fatalf("%s: touch /etc succeeded", mode)
		}
		painted := strings.Contains(errOut, notePrefix+" The sandbox refused")
		if painted != (mode == "always") || (mode != "always" && strings.Contains(errOut, "\x1b[")) {
			t.Errorf("--color=%s: %q", mode, errOut)
		}
		if strings.Contains(errOut, "\x1b[") && !strings.Contains(errOut, "\ntouch: ") && !strings.HasPrefix(errOut, "touch: ") {
			t.Errorf("--color=%s: the command's own stderr changed: %q", mode, errOut)
		}
	}
}

// complete asks cobra's completion entry point, as the shell scripts do.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errOut := cli(t, "", "", append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, code, errOut)
	}
	var values []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, ":") {
			continue // the directive
		}
		values = append(values, strings.SplitN(l, "\t", 2)[0])
	}
	return values
}

func TestCompletionOfValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--mode", ""}, []string{"read-only", "workspace-write", "danger-full-access"}},
		{[]string{"run", "--network", ""}, []string{"deny", "loopback", "domains", "allow-all"}},
		{[]string{"run", "--network", "l"}, []string{"loopback"}},
		{[]string{"run", "--backend", ""}, append([]string{"auto"}, ringfence.Backends...)},
		{[]string{"mcp", "--mode", "w"}, []string{"workspace-write"}},
		{[]string{"policy", "explain", "--network", "a"}, []string{"allow-all"}},
		{[]string{"conformance", "--backend", "a"}, []string{"auto", "all"}},
		{[]string{"--color", ""}, []string{"auto", "always", "never"}},
		{[]string{"run", "--color", "n"}, []string{"never"}},
		{[]string{"run", "--home", ""}, []string{"private", "read-only"}},
		{[]string{"run", "--allow-domain", "@g"}, []string{"@github", "@gitlab", "@go"}},
		{[]string{"audit", "x.jsonl", "--outcome", "gate-"}, []string{"gate-declined", "gate-unavailable"}},
	} {
		if got := complete(t, tc.args...); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
	// Every offered value is one the flag accepts.
	for _, v := range complete(t, "run", "--mode", "") {
		if code, _, errOut := cli(t, "", "", "policy", "explain", "--mode", v, "--network", "allow-all"); code != 0 {
			t.Errorf("--mode %s offered but refused: %s", v, errOut)
		}
	}
	// The scripts exist for every shell.
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, out, _ := cli(t, "", "", "completion", sh)
		if code != 0 || !strings.Contains(out, "__complete") {
			t.Errorf("completion %s: exit %d", sh, code)
		}
	}
}

// The command line is told about --timeout and sizes in MiB; a model
// through the library (the zero Audience) about timeout_seconds.
func TestCLIWordsAndUnits(t *testing.T) {
	needBackend(t, "auto")
	ws := workspace(t)
	code, _, errOut := cli(t, ws, "", "run", "--timeout", "1s", "--kill-after", "0", "--", "sleep", "30")
	if code != exitTimedOut || !strings.Contains(errOut, "timeout of 1s (--timeout)") || strings.Contains(errOut, "timeout_seconds") {
		t.Errorf("CLI timeout: exit %d, %q", code, errOut)
	}
	code, _, errOut = cli(t, ws, "", "run", "--memory", "50M", "--", "sh", "-c", "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo ${#x}")
	if code != exitOverBudget || !strings.Contains(errOut, "its limit of 50 MiB") || !strings.Contains(errOut, "--memory") ||
		regexp.MustCompile(`\d{6,} bytes`).MatchString(errOut) {
		t.Errorf("CLI memory: exit %d, %q", code, errOut)
	}
	sb, err := ringfence.New(ringfence.Config{Root: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := sb.Exec(ctx, []string{"sleep", "30"}, ringfence.ExecOptions{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Narration, "(timeout_seconds)") || strings.Contains(res.Narration, "--timeout") {
		t.Errorf("model timeout: %q", res.Narration)
	}
	// The tools MCP serves: the model's words, with the argument it has.
	r := tools.New(sb, tools.Options{}).Call(ctx, "run_command", json.RawMessage(`{"command": "sleep 30", "timeout_seconds": 1}`))
	if r.Outcome.Kind != outcome.TimedOut || !strings.Contains(r.Text, "Give a larger timeout_seconds") || strings.Contains(r.Text, "--") {
		t.Errorf("tools timeout: %s: %q", r.Outcome.Kind, r.Text)
	}
}

// The exit-status table of run --help is the README's.
func TestExitTableInREADME(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, help, _ := cli(t, "", "", "run", "--help")
	for _, code := range []string{"120", "121", "122", "124", "125", "126", "127", "128+N", "130"} {
		if !strings.Contains(help, "\n  "+code+" ") {
			t.Errorf("run --help lacks exit status %s", code)
		}
		if !strings.Contains(string(readme), "\n| "+code+" |") {
			t.Errorf("README's table lacks exit status %s", code)
		}
	}
}
