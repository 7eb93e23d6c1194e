package auditview

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/internal/auditview/headless"
)

var (
	liRe    = regexp.MustCompile(`<li class="call[^"]*"[^>]*>`)
	bodyTag = regexp.MustCompile(`<body[^>]*>`)
)

// visible is the data-tool/data-outcome of every call Chromium shows, and
// how many it hides.
func visible(t *testing.T, dom string) (shown []string, hidden int) {
	t.Helper()
	if !strings.Contains(dom, `<body data-filtered="1">`) {
		t.Fatalf("the page's script did not run (CSP hash?):\n%.2000s", dom)
	}
	for _, li := range liRe.FindAllString(dom, -1) {
		if strings.Contains(li, ` hidden=""`) {
			hidden++
			continue
		}
		shown = append(shown, attr(li, "data-tool")+"/"+attr(li, "data-outcome"))
	}
	return shown, hidden
}

func attr(tag, name string) string {
	m := regexp.MustCompile(` ` + name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return m[1]
}

func writePage(t *testing.T, recs []audit.Record) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "audit.html")
	if err := os.WriteFile(p, []byte(render(t, "audit.jsonl", recs)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestChromiumFilters(t *testing.T) {
	recs := []audit.Record{
		{Time: "2026-11-29T12:00:00.000Z", Session: "s-a", Tool: "run_command", Args: map[string]any{"command": "make test"}, Outcome: "ok"},
		{Time: "2026-11-29T12:00:01.000Z", Session: "s-a", Tool: "write_file", Args: map[string]any{"path": "a"}, Gate: "declined", Outcome: "gate-declined"},
		{Time: "2026-11-29T12:00:02.000Z", Session: "s-b", Tool: "run_command", Args: map[string]any{"command": "git push"}, Gate: "approved-once", Outcome: "ok"},
		{Time: "2026-11-29T12:00:03.000Z", Session: "s-b", Tool: "read_file", Args: map[string]any{"path": "x"}, Outcome: "denied-by-policy", Path: "/workspace/x"},
	}
	page := writePage(t, recs)
	for _, c := range []struct {
		hash string
		want []string
	}{
		{"", []string{"run_command/ok", "write_file/gate-declined", "run_command/ok", "read_file/denied-by-policy"}},
		{"tool=run_command", []string{"run_command/ok", "run_command/ok"}},
		{"outcome=refused", []string{"write_file/gate-declined", "read_file/denied-by-policy"}},
		{"outcome=approved", []string{"run_command/ok"}},
		{"outcome=denied-by-policy&tool=read_file", []string{"read_file/denied-by-policy"}},
		{"session=s-b&tool=run_command", []string{"run_command/ok"}},
		{"tool=no-such-tool", []string{"run_command/ok", "write_file/gate-declined", "run_command/ok", "read_file/denied-by-policy"}}, // not a menu value: no filter
		{"tool=%E0%A4%A", []string{"run_command/ok", "write_file/gate-declined", "run_command/ok", "read_file/denied-by-policy"}},     // malformed
	} {
		dom := headless.DumpDOM(t, page, c.hash)
		shown, hidden := visible(t, dom)
		if strings.Join(shown, " ") != strings.Join(c.want, " ") || hidden != len(recs)-len(c.want) {
			t.Errorf("#%s: shown %v (%d hidden), want %v", c.hash, shown, hidden, c.want)
		}
		if !strings.Contains(dom, `<b id="shown">`+itoa(len(c.want))+`</b>`) {
			t.Errorf("#%s: the count does not say %d", c.hash, len(c.want))
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Attacker-chosen text in the trail renders as text in a real browser: no
// element it names exists, no script it holds runs. The control opens the
// same payloads written into a page raw, without the CSP, and sees them
// run — so the check could fail.
func TestChromiumXSS(t *testing.T) {
	dom := headless.DumpDOM(t, writePage(t, hostile()), "")
	if shown, _ := visible(t, dom); len(shown) != len(xss) {
		t.Fatalf("%d calls shown, want %d", len(shown), len(xss))
	}
	if b := bodyTag.FindString(dom); strings.Contains(b, "data-pwned") {
		t.Fatalf("an injected script ran: %s", b)
	}
	for _, tag := range []string{"<img", "<svg"} {
		if strings.Contains(dom, tag) {
			t.Fatalf("the DOM holds an injected %s element", tag)
		}
	}
	if !strings.Contains(dom, "&lt;img src=x onerror=") || !strings.Contains(dom, "&lt;/script&gt;&lt;script&gt;") {
		t.Fatal("the payloads are not shown as text")
	}
	if strings.Count(dom, "<script") != 1 {
		t.Fatalf("%d scripts in the DOM", strings.Count(dom, "<script"))
	}

	raw := filepath.Join(t.TempDir(), "raw.html")
	os.WriteFile(raw, []byte("<!DOCTYPE html><html><body><p>"+xss[0]+"</p><p>"+xss[2]+"</p><script>"+strings.TrimPrefix(xss[1], "</script><script>")+"</body></html>"), 0o600)
	if ctl := headless.DumpDOM(t, raw, ""); !strings.Contains(bodyTag.FindString(ctl), "data-pwned") {
		t.Fatalf("control: the payloads did not run in a raw page:\n%s", ctl)
	}
}
