package auditview

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/outcome"
)

// xss are attacker-chosen strings a trail can hold (command lines, paths,
// tool names, reasons): each one, were it markup, would run a script or
// load something.
var xss = []string{
	`<img src=x onerror="document.body.setAttribute('data-pwned','img')">`,
	`</script><script>document.body.setAttribute('data-pwned','script')</script>`,
	`"><svg onload="document.body.setAttribute('data-pwned','svg')">`,
	`' onmouseover='document.body.setAttribute("data-pwned","attr")`,
	`</textarea></style><style>body{background:url(http://203.0.113.9/x)}</style>`,
	"javascript:document.body.setAttribute('data-pwned','url')",
	"\u202eevil\u0000\x1b[2J",
}

func hostile() []audit.Record {
	var recs []audit.Record
	for i, s := range xss {
		recs = append(recs, audit.Record{
			Time: "2026-11-29T12:00:0" + string(rune('0'+i)) + ".000Z", Session: "s-" + s, Tool: s,
			Args:   map[string]any{"command": s, "path": s},
			Policy: s, Gate: s, Outcome: s, Reason: s, Path: s, Programs: []string{s},
			Violations: []outcome.Violation{{Backend: s, Reason: s, Path: s, Target: s, Snippet: s}},
		})
	}
	return recs
}

func render(t testing.TB, title string, recs []audit.Record) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, title, recs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var (
	tagRe  = regexp.MustCompile(`(?i)<(script|img|svg|iframe|link|object|embed|base|form|meta|style)\b`)
	attrRe = regexp.MustCompile(`\s([a-zA-Z-]+)(="[^"<>]*")?`)
	// The page's own tags and attributes: a record's text can add none.
	allowedTags  = "!doctype html head meta title style body h1 p span b div label select option ol li details summary dl dt dd table tr th td script /"
	allowedAttrs = map[string]bool{"lang": true, "charset": true, "http-equiv": true, "content": true, "name": true, "class": true, "id": true, "value": true, "hidden": true}
)

// checkInert checks the page's markup. html/template escapes every "<" a
// value holds, so each literal tag is the template's: every tag must be
// one the template writes, with attributes it writes (data-* included),
// exactly one script and one style, whose text is the one the CSP allows
// by hash.
func checkInert(t testing.TB, page string) {
	t.Helper()
	if !strings.Contains(page, "<script>"+script+"</script>") || !strings.Contains(page, "<style>"+style+"</style>") {
		t.Fatal("the script or style was changed on the way out: the CSP hash would not allow it")
	}
	if !strings.Contains(page, `content="`+CSP+`"`) {
		t.Fatal("no CSP meta")
	}
	if strings.Count(page, "<script") != 1 || strings.Count(page, "<style") != 1 {
		t.Fatalf("page has %d scripts and %d styles", strings.Count(page, "<script"), strings.Count(page, "<style"))
	}
	body := strings.Replace(strings.Replace(page, script, "", 1), style, "", 1)
	for i := strings.IndexByte(body, '<'); i >= 0; i = strings.IndexByte(body, '<') {
		end := strings.IndexByte(body[i:], '>')
		if end < 0 {
			t.Fatalf("an unclosed tag: %.80q", body[i:])
		}
		tag := body[i+1 : i+end]
		body = body[i+end+1:]
		name, rest, _ := strings.Cut(tag, " ")
		name = strings.ToLower(strings.TrimPrefix(name, "/"))
		if name == "!doctype" && rest == "html" {
			continue
		}
		if !strings.Contains(" "+allowedTags+" ", " "+name+" ") {
			t.Fatalf("a tag the template does not write: <%s>", tag)
		}
		rest = strings.TrimSpace(rest)
		for _, m := range attrRe.FindAllStringSubmatch(" "+rest, -1) {
			if !allowedAttrs[m[1]] && !strings.HasPrefix(m[1], "data-") {
				t.Fatalf("an attribute the template does not write: %q in <%s>", m[1], tag)
			}
		}
		if left := attrRe.ReplaceAllString(" "+rest, ""); strings.TrimSpace(left) != "" {
			t.Fatalf("tag <%s> holds more than attributes: %q", tag, left)
		}
	}
}

func TestRenderEscapesEverything(t *testing.T) {
	page := render(t, "</title><script>alert(1)</script>", hostile())
	checkInert(t, page)
	for _, s := range []string{"&lt;img src=x", "&lt;/script&gt;&lt;script&gt;", "&lt;svg onload"} {
		if !strings.Contains(page, s) {
			t.Errorf("page does not show %q as text", s)
		}
	}
	// Control: the same strings written raw would be markup.
	raw := "<html><body>" + strings.Join(xss, " ") + "</body></html>"
	if tagRe.FindString(raw) == "" {
		t.Fatal("control: the payloads are not markup")
	}
}

func TestRenderEveryCall(t *testing.T) {
	recs := []audit.Record{
		{Time: "2026-11-29T12:00:00.000Z", Session: "s-a", Tool: "run_command", Args: map[string]any{"command": "make test"}, Outcome: "ok", DurationMS: 12},
		{Time: "2026-11-29T12:00:01.000Z", Session: "s-a", Tool: "write_file", Args: map[string]any{"path": "a"}, Gate: "declined", Outcome: "gate-declined"},
		{Time: "2026-11-29T12:00:02.000Z", Session: "s-b", Tool: "run_command", Args: map[string]any{"command": "git push"}, Gate: "approved-once", Outcome: "nonzero-exit"},
		{Time: "2026-11-29T12:00:03.500Z", Session: "s-b", Tool: "read_file", Args: map[string]any{"path": "x"}, Outcome: "denied-by-policy", Path: "/workspace/x"},
	}
	page := render(t, "a.jsonl", recs)
	checkInert(t, page)
	if n := strings.Count(page, `<li class="call `); n != len(recs) {
		t.Fatalf("%d calls on the page, want %d", n, len(recs))
	}
	for _, want := range []string{`id="refusals">2<`, `id="approvals">1<`, `id="sessions">2<`, `&#43;3.5s`, `data-approved="1"`, "make test", "/workspace/x",
		`<option value="read_file">`, `<option value="gate-declined">`, `<option value="s-b">`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if empty := render(t, "e", nil); !strings.Contains(empty, `id="empty"`) {
		t.Error("an empty trail does not say so")
	}
}

func FuzzRender(f *testing.F) {
	for _, s := range xss {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		recs := []audit.Record{{Time: a, Session: b, Tool: a, Args: map[string]any{"command": b, a: a}, Outcome: b, Gate: a, Path: b,
			Violations: []outcome.Violation{{Snippet: a, Path: b}}}}
		checkInert(t, render(t, a, recs))
	})
}
