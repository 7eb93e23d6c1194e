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
// # Trust
//
// A file is trusted when the person chose it (the CLI's --policy, their
// own ~/.config/ringfence/policy.toml) or trusted it: the trust store
// (Trust, ~/.config/ringfence/trusted.json) pins an absolute path
// (CanonicalPath: the directory's links resolved, the name kept) to the
// SHA-256 of the exact bytes trusted. Any other file — a workspace's
// .ringfence.toml that came with a repository or was written by an
// earlier sandboxed command — goes through File.Narrow: it may only
// narrow the policy it lands on, judged for mode, network and limits by
// policy.Resolve exactly as a model's request is; its entries become
// policy.Defaults.Restrictions (intersection, never a grant); every
// widening is named in a *WideningError.
//
// # Threat model
//
// The adversary writes a workspace's policy file: it may ask for
// danger-full-access, more network, write entries, higher limits, lower
// protections, allow rules, the host's secrets ([env] pass) or variables
// of its choice ([env] set) — all refused untrusted; it may add a key a
// later schema introduces (refused until Narrow measures it: narrowKeys,
// and a test pins the schema); it may make the file a link to a trusted
// file elsewhere (trust is by the path found, not the target), a FIFO
// (opened non-blocking, the opened file must be regular), or change it
// between hash and parse (LoadFile reads once; the bytes hashed are the
// bytes parsed). It may try to write the trust store or the user's own
// policy: the CLI denies ~/.config/ringfence to every sandboxed command
// and keeps its parents inside a write grant read-only; LoadTrust refuses
// a store that is a link, not a regular file, not the user's, or
// writable by group or others (or in such a directory).
//
// A trusted file is the operator's, but it is also the most
// security-relevant text a user edits by hand, so a typo must fail loudly
// (an unknown key, a wrong type, a relative root) rather than leave a
// default in force. Files are bounded to 1 MiB.
//
// # Gaps
//
//   - Lines for keys inside multi-line inline values are the line of the
//     value's start; a file's error message names keys and clipped values
//     from the file, which is the operator's own text (or, for a refused
//     workspace file, the repository's).
//   - The store lives under os.UserConfigDir, which honours
//     XDG_CONFIG_HOME: whoever sets ringfence's environment chooses it.
//   - Two concurrent `policy trust` runs may lose one record (read, modify,
//     rename; no lock).
//   - A trusted workspace file replaces the user's policy file rather than
//     layering on it (as --policy does).
package policyfile
