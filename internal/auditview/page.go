package auditview

// style is the page's only style sheet; the Content-Security-Policy
// allows exactly it (by hash), so no injected style can apply.
const style = `
:root { color-scheme: light dark; --ok: #1a7f37; --refused: #cf222e; --error: #9a6700; --muted: #6e7781; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 78em; padding: 0 1em; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
.summary span { margin-right: 1.2em; }
.filters { margin: 1em 0; display: flex; gap: 1em; flex-wrap: wrap; align-items: center; }
ol.calls { list-style: none; padding: 0; margin: 0; border-left: 3px solid var(--muted); }
li.call { margin: 0 0 .35em; padding-left: .8em; position: relative; }
li.call::before { content: ""; position: absolute; left: -8px; top: .55em; width: 11px; height: 11px; border-radius: 50%; background: var(--muted); }
li.ok::before { background: var(--ok); }
li.refused::before { background: var(--refused); }
li.error::before { background: var(--error); }
summary { cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
code, pre, .mono { font-family: ui-monospace, monospace; font-size: 12.5px; }
.t { color: var(--muted); }
.badge { border-radius: 3px; padding: 0 .4em; border: 1px solid var(--muted); }
li.ok .badge.out { color: var(--ok); border-color: var(--ok); }
li.refused .badge.out { color: var(--refused); border-color: var(--refused); font-weight: 600; }
li.error .badge.out { color: var(--error); border-color: var(--error); }
.badge.gate { border-style: dashed; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .15em 1em; margin: .5em 0 .8em 1em; }
dt { color: var(--muted); }
dd { margin: 0; white-space: pre-wrap; word-break: break-all; }
table { border-collapse: collapse; }
td, th { border: 1px solid var(--muted); padding: .1em .4em; text-align: left; vertical-align: top; }
.s0 { border-left: 4px solid #0969da; } .s1 { border-left: 4px solid #8250df; } .s2 { border-left: 4px solid #bf3989; } .s3 { border-left: 4px solid #1b7c83; }
.s4 { border-left: 4px solid #953800; } .s5 { border-left: 4px solid #4d2d00; } .s6 { border-left: 4px solid #116329; } .s7 { border-left: 4px solid #57606a; }
`

// script filters the calls by the URL's hash (#tool=…&outcome=…&session=…)
// and keeps the hash and the menus in step, so a filtered view is a link.
// It only compares strings and sets hidden/textContent: no record text is
// ever parsed as markup.
const script = `
(function () {
  "use strict";
  var calls = Array.prototype.slice.call(document.querySelectorAll("li.call"));
  var keys = ["tool", "outcome", "session"];
  var menus = {};
  keys.forEach(function (k) { menus[k] = document.getElementById("f-" + k); });
  function parse() {
    var out = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i <= 0) { return; }
      try { out[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1)); } catch (e) { /* a malformed hash filters nothing */ }
    });
    return out;
  }
  function matches(li, f) {
    var d = li.dataset;
    if (f.tool && d.tool !== f.tool) { return false; }
    if (f.session && d.session !== f.session) { return false; }
    if (f.outcome === "refused") { return d.refused === "1"; }
    if (f.outcome === "approved") { return d.approved === "1"; }
    return !f.outcome || d.outcome === f.outcome;
  }
  function apply() {
    var f = parse(), shown = 0;
    keys.forEach(function (k) {
      var v = Object.prototype.hasOwnProperty.call(f, k) ? f[k] : "";
      menus[k].value = v;
      if (menus[k].value !== v) { menus[k].value = ""; f[k] = ""; }
    });
    calls.forEach(function (li) {
      var show = matches(li, f);
      li.hidden = !show;
      if (show) { shown++; }
    });
    document.getElementById("shown").textContent = String(shown);
    document.body.setAttribute("data-filtered", "1");
  }
  function changed() {
    var parts = [];
    keys.forEach(function (k) {
      if (menus[k].value) { parts.push(k + "=" + encodeURIComponent(menus[k].value)); }
    });
    location.hash = parts.join("&");
  }
  keys.forEach(function (k) { menus[k].addEventListener("change", changed); });
  window.addEventListener("hashchange", apply);
  apply();
})();
`

const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ringfence audit: {{.Title}}</title>
<style>{{.Style}}</style>
</head>
<body>
<h1>ringfence audit: <span class="mono">{{.Title}}</span></h1>
<p class="summary">
<span><b id="total">{{len .Calls}}</b> calls</span>
<span><b id="sessions">{{len .Sessions}}</b> sessions</span>
<span><b id="refusals">{{.Refusals}}</b> refused</span>
<span><b id="approvals">{{.Approvals}}</b> approved by a person</span>
<span class="t">{{.Span}}</span>
</p>
<div class="filters">
<label>tool <select id="f-tool"><option value="">all</option>{{range .Tools}}<option value="{{.}}">{{.}}</option>{{end}}</select></label>
<label>outcome <select id="f-outcome"><option value="">all</option><option value="refused">refused (any)</option><option value="approved">approved by a person</option>{{range .Outcomes}}<option value="{{.}}">{{.}}</option>{{end}}</select></label>
<label>session <select id="f-session"><option value="">all</option>{{range .Sessions}}<option value="{{.}}">{{.}}</option>{{end}}</select></label>
<span>showing <b id="shown">{{len .Calls}}</b> of {{len .Calls}}</span>
</div>
<ol class="calls" id="calls">
{{range .Calls}}<li class="call {{.Class}} {{.SessionClass}}" id="call-{{.N}}" data-tool="{{.Tool}}" data-outcome="{{.Outcome}}" data-session="{{.Session}}" data-refused="{{if .Refused}}1{{else}}0{{end}}" data-approved="{{if .Approved}}1{{else}}0{{end}}">
<details><summary><span class="t mono">{{.Time}}</span> <span class="t">{{.Offset}}</span> <b>{{.Tool}}</b> <span class="badge out">{{.Outcome}}</span>{{if .Gate}} <span class="badge gate">gate: {{.Gate}}</span>{{end}} <span class="mono args">{{.Summary}}</span></summary>
<dl>
{{range .Fields}}<dt>{{.Name}}</dt><dd>{{.Value}}</dd>
{{end}}</dl>
{{if .Violations}}<table class="violations"><tr><th>backend</th><th>reason</th><th>path / target</th><th>evidence</th></tr>
{{range .Violations}}<tr><td>{{.Backend}}</td><td>{{.Reason}}</td><td class="mono">{{.Path}}{{.Target}}</td><td class="mono">{{.Snippet}}</td></tr>
{{end}}</table>{{end}}
</details>
</li>
{{end}}</ol>
{{if not .Calls}}<p id="empty">The trail holds no calls.</p>{{end}}
<script>{{.Script}}</script>
</body>
</html>
`
