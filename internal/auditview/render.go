package auditview

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ringfence/ringfence/internal/audit"
	"github.com/ringfence/ringfence/outcome"
)

// CSP is the page's Content-Security-Policy: nothing may load (no
// network, no external asset, no form), and only the page's
// own style sheet and script run, each allowed by its hash — an injected
// <script> or style="" would not run even if escaping had a hole.
var CSP = "default-src 'none'; style-src '" + hashOf(style) + "'; script-src '" + hashOf(script) + "'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'"

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// tmpl is parsed on first use, not at package initialisation: every
// ringfence process links this package, few render a page.
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("audit").Parse(strings.Replace(page, "{{.CSP}}", CSP, 1)))
})

// refusedKinds are the outcomes that mean ringfence (or a person) refused
// the call, as against a command that ran and failed.
var refusedKinds = map[string]bool{
	string(outcome.DeniedByPolicy): true, string(outcome.GateDeclined): true, string(outcome.GateUnavailable): true,
	string(outcome.SandboxViolation): true, string(outcome.OutsideWriteRoot): true, string(outcome.PathRejected): true,
	string(outcome.Unavailable): true,
}

// approvedGates are the gate results where a person said yes (now, or
// earlier for the session).
var approvedGates = map[string]bool{"approved-once": true, "approved-session": true, "session": true}

type view struct {
	Title, Span         string
	Style               template.CSS
	Script              template.JS
	Calls               []call
	Tools, Outcomes     []string
	Sessions            []string
	Refusals, Approvals int
}

type call struct {
	N                                 int
	Time, Offset, Tool, Outcome, Gate string
	Session, SessionClass, Class      string
	Summary                           string
	Refused, Approved                 bool
	Fields                            []field
	Violations                        []outcome.Violation
}

type field struct{ Name, Value string }

// Render writes one self-contained HTML page of recs (a session's calls,
// in the order recorded): a summary, filters by tool, outcome and session
// (driven by the URL's hash), and a timeline whose every entry opens on
// the call's details. title names the trail. Every value from the trail
// is escaped by html/template for where it lands; nothing is loaded from
// anywhere (see CSP).
func Render(w io.Writer, title string, recs []audit.Record) error {
	v := view{Title: title, Style: template.CSS(style), Script: template.JS(script)}
	var first time.Time
	var last time.Time
	tools, outcomes, sessions := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for i, r := range recs {
		c := call{
			N: i + 1, Time: r.Time, Tool: r.Tool, Outcome: r.Outcome, Gate: r.Gate,
			Session: r.Session, SessionClass: sessionClass(r.Session),
			Summary:  audit.Summary(r.Args),
			Refused:  refusedKinds[r.Outcome],
			Approved: approvedGates[r.Gate],
		}
		switch {
		case c.Refused:
			c.Class = "refused"
		case r.Outcome == string(outcome.OK):
			c.Class = "ok"
		default:
			c.Class = "error"
		}
		if t, err := time.Parse(audit.TimeFormat, r.Time); err == nil {
			if first.IsZero() {
				first = t
			}
			last = t
			c.Offset = "+" + t.Sub(first).Round(time.Millisecond).String()
		}
		c.Fields = fields(r)
		c.Violations = r.Violations
		if c.Refused {
			v.Refusals++
		}
		if c.Approved {
			v.Approvals++
		}
		tools[r.Tool], outcomes[r.Outcome] = true, true
		if r.Session != "" {
			sessions[r.Session] = true
		}
		v.Calls = append(v.Calls, c)
	}
	v.Tools, v.Outcomes, v.Sessions = sorted(tools), sorted(outcomes), sorted(sessions)
	if !first.IsZero() {
		v.Span = first.Format(time.DateTime) + " – " + last.Format(time.DateTime) + " UTC (" + last.Sub(first).Round(time.Millisecond).String() + ")"
	}
	return tmpl().Execute(w, v)
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// sessionClass gives each session one of eight colours.
func sessionClass(s string) string {
	if s == "" {
		return ""
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	return "s" + strconv.Itoa(int(h.Sum32()%8))
}

// fields are the call's details, every recorded field that is set.
func fields(r audit.Record) []field {
	var out []field
	add := func(name, value string) {
		if value != "" {
			out = append(out, field{name, value})
		}
	}
	add("time", r.Time)
	add("session", r.Session)
	add("tool", r.Tool)
	if len(r.Args) > 0 {
		// As sent: html/template escapes it for the page, and JSON's own
		// \u003c escaping would only hide from the auditor what was sent.
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if enc.Encode(r.Args) == nil {
			add("arguments", strings.TrimSuffix(b.String(), "\n"))
		}
	}
	add("policy", r.Policy)
	if r.Capability != "" || r.Classified != "" {
		add("classification", r.Capability+" → "+r.Classified)
	}
	add("programs", strings.Join(r.Programs, " "))
	add("permissions", strings.Join(r.Permissions, ", "))
	add("gate", r.Gate)
	add("approval", r.Approval)
	add("backend", r.Backend)
	if e := r.Enforcement; e != nil {
		s := fmt.Sprintf("files %s, network %s, resources %s", e.Files, e.Network, e.Resources)
		if e.Scratch != "" {
			s += ", /tmp " + e.Scratch
		}
		if len(e.Reasons) > 0 {
			s += "\n" + strings.Join(e.Reasons, "\n")
		}
		add("enforcement", s)
	}
	add("outcome", r.Outcome)
	add("reason", r.Reason)
	add("path", r.Path)
	if r.IsError {
		add("is error", "yes")
	}
	add("duration", strconv.FormatFloat(r.DurationMS, 'f', -1, 64)+" ms")
	return out
}
