package outcome

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestToolTextGolden pins every sentence the tools put around content.
func TestToolTextGolden(t *testing.T) {
	long := strings.Repeat("0123456789", 10)
	cases := []struct {
		name, text string
	}{
		{"written", Written("/workspace/a.go", 12, false, 0)},
		{"written created", Written("/workspace/a.go", 1, true, 0)},
		{"written edited", Written("/workspace/a.go", 40, false, 2)},
		{"written edited once", Written("/workspace/a.go", 40, false, 1)},
		{"binary file", BinaryFile("/workspace/a.bin", 2048)},
		{"empty", Empty("/workspace/src")},
		{"more lines", MoreLines(1, 200)},
		{"glob page", GlobPage(2, 5, "c1")},
		{"grep done", GrepSummary(3, 1, -1, "")},
		{"grep page", GrepSummary(1, 1, 7, "c\"2")},
		{"grep page no total", GrepSummary(2, 2, -1, "c3")},
		{"approval note", ApprovalNote("use the \"fast\" path\n")},
		{"command exit", CommandText{ExitCode: code(2), Stdout: "out\n", Stderr: "err\n"}.Text(1000)},
		{"command signal cut", CommandText{Signal: "SIGKILL", Stdout: long, StdoutSeen: 4096}.Text(40)},
		{"command kind", CommandText{Kind: "timed-out"}.Text(1000)},
		{"stream empty", Stream("stdout", "", 0, 10)},
		{"one-shot network ask", RanOneShot(OneShotNetworkAsk)},
		{"one-shot cpu", RanOneShot(OneShotCPULimit)},
		{"one-shot no sessions", RanOneShot(OneShotNoSessions)},
		{"one-shot widened", RanOneShot(OneShotWidened("network: allow-all"))},
		{"one-shot full", RanOneShot(OneShotFull(16))},
		{"process ended", ProcessEnded(3)},
		{"process running", ProcessRunning(4)},
		{"no processes", NoProcesses},
		{"lost output", LostOutput(1) + "|" + LostOutput(0) + "|" + LostOutput(9)},
		{"outputs not collected", Outputs{Env: "RINGFENCE_OUTPUT_DIR"}.Text(100)},
		{"outputs none", Outputs{Collected: true, Env: "RINGFENCE_OUTPUT_DIR"}.Text(100)},
		{"outputs", Outputs{Collected: true, Cut: true, Omitted: 2, Env: "RINGFENCE_OUTPUT_DIR", Artifacts: []Artifact{
			{Name: "a.txt", Size: 6, MIME: "text/plain", SHA256: "ab12", Content: []byte("hello\n"), Text: true},
			{Name: "big.csv", Size: 90, MIME: "text/csv", SHA256: "cd34", Content: []byte(long[:90]), Text: true},
			{Name: "p.png", Size: 3, MIME: "image/png", SHA256: "ef56", Content: []byte{1, 2, 3}},
			{Name: "large.bin", Size: 1 << 20, MIME: "application/octet-stream", SHA256: "0a0b", SavedTo: "/workspace/outputs/large.bin"},
			{Name: "huge", Size: 1 << 30, Refused: "over-budget", Detail: "larger than the artifact limit"},
			{Name: "kept", Size: 5, MIME: "text/plain", SHA256: "99", Refused: "over-budget"},
			{Name: "link\"x", Refused: "symlink", Unread: true},
		}}.Text(40)},
		{"outputs one", Outputs{Collected: true, Cut: true, Omitted: 1, Env: "X", Artifacts: []Artifact{{Name: "a", Size: 1, MIME: "text/plain", SHA256: "1"}}}.Text(40)},
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString("--- " + c.name + "\n" + c.text + "\n")
	}
	checkGolden(t, filepath.Join("testdata", "tooltext", "tooltext.golden"), b.String())
}

func TestCutMiddle(t *testing.T) {
	if s, n := CutMiddle("short", 10); s != "short" || n != 0 {
		t.Fatalf("CutMiddle(short) = %q, %d", s, n)
	}
	s, n := CutMiddle("ééééééééé", 7) // 18 bytes, runes of 2: 3 bytes each side hold one rune
	if n != 18-len("é")-len("é") || !strings.HasPrefix(s, "é\n[… 14 bytes") || !strings.HasSuffix(s, "]\né") {
		t.Fatalf("CutMiddle splits runes or miscounts: %q, %d", s, n)
	}
	if JoinText("a\n\n", "b") != "a\n\nb" || JoinText("", "b") != "b" || JoinText("a", "") != "a" {
		t.Fatal("JoinText")
	}
	if q := QuoteShort(strings.Repeat("é", 150)); len(q) > 200+len("…")+2 || !strings.HasSuffix(q, "…\"") {
		t.Fatalf("QuoteShort does not bound: %d bytes", len(q))
	}
}

// FuzzCutMiddle: any output and any bound: no panic, the kept bytes fit
// the bound, the count of omitted bytes is exact, and valid UTF-8 stays
// valid (no rune is split).
func FuzzCutMiddle(f *testing.F) {
	f.Add("hello world", 4)
	f.Add("ééééé", 3)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 1<<16 {
			return
		}
		out, omitted := CutMiddle(s, max)
		if len(s) <= max {
			if out != s || omitted != 0 {
				t.Fatalf("CutMiddle(%q, %d) changed a string within the bound", s, max)
			}
			return
		}
		marker := "\n[… " + strconv.Itoa(omitted) + " bytes omitted …]\n"
		head, tail, ok := strings.Cut(out, marker)
		if !ok || len(head)+len(tail) > max || len(head)+len(tail)+omitted != len(s) ||
			!strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) {
			t.Fatalf("CutMiddle(%q, %d) = %q, %d", s, max, out, omitted)
		}
		if utf8.ValidString(s) && !utf8.ValidString(out) {
			t.Fatalf("CutMiddle(%q, %d) split a rune: %q", s, max, out)
		}
	})
}
