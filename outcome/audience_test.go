package outcome

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestHumanBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{1, "1 byte"}, {512, "512 bytes"}, {1023, "1023 bytes"},
		{1024, "1 KiB"}, {1536, "1.5 KiB"}, {65536, "64 KiB"},
		{52428800, "50 MiB"}, {1 << 30, "1 GiB"}, {3 << 29, "1.5 GiB"},
		{540000000, "514.9 MiB"}, // 514.98…: rounded down, never up
		{1<<20 - 1, "1023.9 KiB"},
		{1 << 40, "1 TiB"}, {1<<63 - 1, "7.9 EiB"},
	} {
		if got := humanBytes(tc.n); got != tc.want {
			t.Errorf("humanBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestHumanSeconds(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0s"}, {1, "1s"}, {45, "45s"}, {60, "1m"}, {150, "2m30s"},
		{3600, "1h"}, {3900, "1h5m"}, {3661, "1h1m1s"}, {90000, "25h"},
	} {
		if got := humanSeconds(tc.n); got != tc.want {
			t.Errorf("humanSeconds(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// FuzzHumanBytes: the text parses back to at most n and within one tenth
// of its unit, so a size is never overstated nor badly understated.
func FuzzHumanBytes(f *testing.F) {
	for _, n := range []int64{0, 1, 1023, 1024, 1536, 52428800, 1<<63 - 1} {
		f.Add(n)
	}
	re := regexp.MustCompile(`^(\d+)(?:\.(\d))? (bytes?|[KMGTPE]iB)$`)
	f.Fuzz(func(t *testing.T, n int64) {
		if n < 1 {
			return
		}
		s := humanBytes(n)
		m := re.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("humanBytes(%d) = %q: not a size", n, s)
		}
		unit := 1.0
		if i := strings.Index("KMGTPE", m[3][:1]); m[3][0] != 'b' && i >= 0 {
			for range i + 1 {
				unit *= 1024
			}
		}
		var whole, tenth float64
		for _, c := range m[1] {
			whole = whole*10 + float64(c-'0')
		}
		if m[2] != "" {
			tenth = float64(m[2][0] - '0')
		}
		back := (whole + tenth/10) * unit
		if back > float64(n)*(1+1e-12) || float64(n)-back > unit/10+unit/1024+1 {
			t.Fatalf("humanBytes(%d) = %q reads as %.0f", n, s, back)
		}
	})
}

// modelWords are the names a model uses (tool arguments, "the call") and a
// person at the command line does not have.
var modelWords = regexp.MustCompile(`timeout_seconds|_bytes|cpu_seconds|tool call|[Tt]he call\b|per call|[Aa]sk the user|[Tt]ell the user|run_code`)

// flagWords are command-line flags, which a model calling tools does not have.
var flagWords = regexp.MustCompile(`(^|[\s(])--[a-z]`)

func TestPhrasesPerAudience(t *testing.T) {
	for p, pair := range phrases {
		if pair[0] == "" || pair[1] == "" {
			t.Errorf("phrase %d lacks a wording: %q", p, pair)
		}
		if modelWords.MatchString(pair[1]) {
			t.Errorf("phrase %d: the CLI's words use a model's: %q", p, pair[1])
		}
		if flagWords.MatchString(pair[0]) {
			t.Errorf("phrase %d: the model's words name a flag: %q", p, pair[0])
		}
	}
}

// cliKinds are the kinds `ringfence run` can produce: FromExec's.
var cliKinds = []Kind{OK, NotFound, NonzeroExit, SandboxViolation, RunnerFailure, TimedOut, Aborted, OverBudget, Unavailable}

// TestCLINarrationGolden pins the command line's text for every case of
// every kind it can meet, and checks each speaks in flags, never in tool
// arguments — while the model's text of the same case names no flag.
func TestCLINarrationGolden(t *testing.T) {
	for _, k := range cliKinds {
		var b strings.Builder
		for _, c := range narrationCases[k] {
			if k == OverBudget && c.o.Path != "" || c.o.Bound == "maxTerminalPayloadBytes" {
				continue // a file tool's read budget: MCP only
			}
			ctx := goldenContext
			if o := caseContext[string(k)+"/"+c.name]; o != nil {
				ctx = *o
			}
			model := Narrate(c.o, ctx)
			ctx.Audience = AudienceCLI
			text := Narrate(c.o, ctx)
			if m := modelWords.FindString(text); m != "" {
				t.Errorf("%s/%s: CLI text says %q: %s", k, c.name, m, text)
			}
			if m := flagWords.FindString(model); m != "" {
				t.Errorf("%s/%s: model text names a flag %q: %s", k, c.name, m, model)
			}
			b.WriteString("--- " + c.name + "\n" + text + "\n")
		}
		checkGolden(t, filepath.Join("testdata", "narration-cli", string(k)+".golden"), b.String())
	}
}

// TestCLINetworkBlocked: a host the domains allow-list refused is advised
// as the flag that allows it, with the host in it.
func TestCLINetworkBlocked(t *testing.T) {
	o := Outcome{Kind: SandboxViolation, ExitCode: code(1), Violations: []string{ReasonProxy},
		Blocked: []NetBlock{{Host: "evil.example", Port: 443, Reason: "blocked-by-allowlist"}}, Allowed: []string{"proxy.golang.org"}}
	cli := goldenContext
	cli.Audience = AudienceCLI
	if got := Narrate(o, cli); !strings.Contains(got, "--allow-domain evil.example") || modelWords.MatchString(got) {
		t.Errorf("CLI: %s", got)
	}
	if got := Narrate(o, goldenContext); !strings.Contains(got, "Ask the user to allow it") || flagWords.MatchString(got) {
		t.Errorf("model: %s", got)
	}
}
