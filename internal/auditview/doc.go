// Package auditview renders an audit trail (internal/audit) as one
// self-contained HTML page (`ringfence audit FILE --html OUT.html`): a
// summary (calls, sessions, refusals, a person's approvals, the time
// span), a timeline of the calls in the order recorded — time, offset from
// the first call, tool, outcome, gate, arguments — each opening on every
// recorded field (arguments, policy, classification, programs,
// permissions, gate, approval, backend, enforcement, outcome, reason,
// path, duration, violations), and filters by tool, outcome (or "refused",
// "approved") and session. The filters live in the URL's hash
// (#tool=run_command&outcome=refused), so a filtered view is a link, and a
// test drives them by opening the page with a hash.
//
// # Threat model
//
// Everything in a trail may be attacker-chosen: the model writes command
// lines, paths and patterns, a sandboxed command's stderr becomes
// violation evidence, and a trail file can be edited by whoever can write
// it. The page is built with html/template, which escapes each value for
// where it lands (text, attribute); the page's script never parses record
// text as markup (it compares strings and sets hidden and textContent).
// As a second wall, a Content-Security-Policy meta allows nothing to load
// (default-src 'none', no images, connections, forms, frames or base) and
// only the page's own script and style sheet to run, each by its SHA-256:
// an injected <script>, event handler or style would not run even if
// escaping had a hole, and opening the page sends nothing anywhere. Tests
// render hostile records in headless Chromium (package headless: a fresh
// profile, a network namespace with no way out) and check that no
// injected element exists and no injected script ran, against a control
// page where the same payloads do run.
//
// # Gaps
//
//   - The page is as trustworthy as the trail: a forged line shows as
//     recorded (audit.Read refuses only lines that do not decode).
//   - The page holds the trail's command lines; it is written 0600, like
//     the trail, and should be shared as carefully.
//   - Every call is in the page: a trail of hundreds of thousands of calls
//     makes a large page (filter first with --session/--tool/--outcome).
//   - Text that reorders (bidi overrides) is shown escaped by nothing but
//     the browser's own rendering; the terminal table (audit.Table) makes
//     it printable instead.
package auditview
