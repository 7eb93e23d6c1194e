// Package policyfile reads ringfence policy files: TOML or JSON with one
// schema (see File and InitTemplate), strict about unknown keys and types,
// reporting the line of every error. It lives apart from package policy
// because the file embeds execpolicy.Config and execpolicy itself reports
// through policy.ErrPolicy.
//
// Both formats are first read into one tree of values that remember their
// line (BurntSushi/toml parses TOML, a lenient second pass finds each key's
// line; encoding/json's tokenizer reads JSON, rejecting duplicate keys), and
// one reflective decoder fills a File from either, so the two cannot drift.
//
// Threat model: the file is the operator's and trusted, but it is also the
// most security-relevant text a user edits by hand, so a typo must fail
// loudly (an unknown key, a wrong type, a relative root) rather than leave
// a default in force. A file in the workspace root (.ringfence.toml) is a
// protected subpath: a sandboxed command cannot rewrite the policy it runs
// under. Files are bounded to 1 MiB.
//
// Gaps: lines for keys inside multi-line inline values are the line of the
// value's start; a file's error message names keys and clipped values from
// the file, which is the operator's own text.
package policyfile
