// Package sandbox is the pipeline under the public facade: Local, its
// sessions and the result types, one call at a time through
//
//	resolve (Local.Policy, the one place a request meets the defaults)
//	→ confine (the provider internal/confine/backends selected)
//	→ run (internal/run: supervision, limits, bounded output)
//	→ classify and narrate (outcome)
//
// ExecRequest (a model working directory) and ExecScratch (a call
// directory of the code runner) are one pipeline, Local.exec, with the
// working directory as a parameter; sessions resolve through Local.Policy
// too and classify exactly as Exec.
//
// The root package ringfence re-exports every public name of this one
// (type aliases, forwarding functions), so a value a library user makes is
// the value the internal consumers handle: internal/coderun,
// internal/sandboxd/process and internal/mcp depend on this package (and
// declare the narrow interfaces they need of a Local), never on the root.
// The public manual — threat model, sessions, gaps — is the root's
// package documentation (doc.go there); this package adds no behaviour of
// its own beyond it.
//
// Threat model: as the root's. What matters here: a request may only
// narrow the deployment's defaults (policy.Resolve, called in Local.Policy
// only); a confining policy with no usable backend is refused
// (*confine.UnavailableError), never run unconfined; what a backend cannot
// enforce is reported in Enforcement, whose isolation claims (Isolation,
// sessions, the /tmp fate) come from the backend's own confine.Traits, not
// from its name; host paths in backend reasons are scrubbed to the model's
// paths before any result leaves.
//
// Names: every internal type a public method takes or returns, or a
// public field holds, has a name here the root re-exports (Workspace and
// its options and results, the enforcement levels), so a library user can
// write it; the root's TestPublicTypesAreNameable walks the API for one
// that has none. ExecResult carries two kinds, Kind (the seven-way
// ExecKind the CLI maps to exit codes) and Outcome.Kind (the model-facing
// situation); Kind is derived from Outcome.Kind only (outcome.ResultKind),
// and the --json contract keeps both.
//
// Gaps: Workspace is the concrete file layer (internal/workspace's type
// under a public name), not an interface another implementation could
// offer; its methods are as that package defines them.
package sandbox
