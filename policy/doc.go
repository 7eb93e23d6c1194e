// Package policy decides what one tool call may do: the file-effect mode,
// the access at every path, the network and the resource limits. It is
// pure — no syscalls, no disk (a worktree's .git file is read through an
// injected function) — and everything below it enforces exactly the Policy
// it returns or refuses.
//
// # Resolution
//
// Resolve(Request, Defaults) combines two sides. Defaults are the
// deployment's (flags, a policy file, Go code) and are trusted. A Request is
// what a tool call asks for and is not: in an agent it is written by a
// model, which may be confused or steered by what it read. So:
//
//   - the ceiling is the lower of the deployment's mode and the session's;
//   - a request may narrow the mode, add restrictions (entries that cap
//     access in a subtree — intersection, never union), narrow the network
//     (allow-all > domains > loopback > deny; under domains, a subset) and
//     lower or set limits;
//   - a write entry, a wider mode, a wider network or a higher limit is an
//     *EscalationError (ErrPolicy) naming the field and path asked for;
//   - an Approval is the one way to widen. Only Approve makes one; its state
//     is unexported, Request tags it out of JSON, so no payload — however
//     carefully shaped — is one. A single-call approval is spent by the
//     first successful Resolve (atomically: of many concurrent uses exactly
//     one wins); an expired one, or one bound to another session, is refused.
//
// # The agent profile
//
// This package owns the profile ringfence is for, defined once:
// AgentDefaults (workspace-write, the host readable, no network, a process
// bound) and AgentProfile (that plus the user's credential places denied).
// A zero Defaults sets nothing and is read by the facade as that profile;
// any other value is taken as written with its zero fields the strictest,
// so AllowList is the explicit way to ask for an allow-list baseline.
//
// # Layers
//
// A Policy is a baseline (read: a deny-list; deny: an allow-list) plus
// layers sorted broadest to narrowest; the deepest layer containing a path
// decides, and at equal depth the later Origin wins (mode < protected <
// deployment < request < approval), so an operator's entry can reopen a
// protected path and an approval beats a request's restriction at the same
// path. The layers are, in order of construction: the mode's grant (the
// root and temp dir, write, under workspace-write), deployment entries
// (write ones only take effect under workspace-write), request
// restrictions, approved entries, and protected subpaths: layered read
// under every layer that grants write — approved ones and the temp dir
// included — whether or not they exist (see ProtectedSubpaths; a worktree's
// .git file, its gitdir and commondir are protected too). Protections and
// restrictions only ever lower access; layers that change nothing are
// dropped so a backend is never handed a rule without effect.
//
// Policy.Tree snapshots the layers for a walk: Tree.Dir(path) is one
// directory's view (one pass over the layers) and TreeDir.Child(name) the
// view of an entry in it — the same directory view when no layer lies
// beneath, so the access of almost every entry costs nothing. Its answers
// are AccessAt's, in any layer order (FuzzTreeMatchesAccessAt); a name
// that is no directory entry ("", ".", "..", one holding "/") gets a view
// that denies everything.
//
// Defaults.Restrictions are standing restrictions from a source that may
// only narrow (a workspace's untrusted policy file): they cap access like a
// request's entries, with origin FromDeployment, and a write one is
// invalid.
//
// # Environment
//
// Env and DefaultEnv decide which of the host's variables a command gets:
// an allow-list of what shells and toolchains need (PATH with only its
// absolute entries, HOME, locale, GO*, NODE_*, PYTHON*, …), minus every
// variable whose name or value looks like a credential (ClassifyEnv) and
// options that load code at every start of a tool. Env.Pass names
// variables passed regardless; Env.Clear passes none.
//
// Under danger-full-access nothing is confined (Confining is false); the
// baseline is write and the layers that remain only inform the in-process
// fence.
//
// # Threat model
//
// The adversary writes the Request: it may ask for any mode, path, network
// or limit, name paths that look like a sibling of the root (/repo-secrets
// is never inside /repo: comparison is by whole segments), send a cwd
// outside the root (refused), forge an approval in a payload (refused),
// replay a single-call approval (refused), or race two calls with one
// approval (one wins). It may also write files inside its writable roots
// between calls — including a worktree's .git file — which is why every
// value read from disk can only add protections, never grants.
//
// # Gaps
//
//   - Paths are lexical. A symbolic link inside a writable root can point
//     anywhere; the backends (bind mounts, Landlock on opened directories)
//     and the workspace layer (openat2 RESOLVE_BENEATH) resolve links, this
//     package does not.
//   - Names protected at any depth (ProtectedNameTable, GitHookNames, git's
//     rules inside every .git, Defaults.ExtraProtectedNames): no layer can
//     express "every .envrc", so they are a pure matcher
//     (MatchProtectedName, Policy.Names, Policy.ProtectedByName) that the
//     backends' seccomp guard consults for every write. The policy-file
//     key for extra names is another change; Go callers set the field.
//   - Protected subpaths (layers) are named relative to each writable root;
//     nested repositories and .git/modules are covered by the name rules
//     above, not by layers.
//   - A protected path that does not exist yet is a rule about a name; how
//     a backend keeps it from being created is the backend's business.
//   - The environment's credential checks are heuristics over names and
//     value shapes: an opaque secret under an allow-listed name
//     (PYTHONFOO=<random>) passes. The allow-list keeps that set small.
//   - Network rules are netproxy rules, validated here with
//     netrule.ParseRules (internal/netproxy/netrule, the half of netproxy
//     without net/http). A request narrows them by naming a subset (each
//     of its allow rules covered by one of the ceiling's) and may add deny
//     rules, never remove one; an approval adds allow rules but a ceiling
//     deny rule still wins. Whether a proxy enforces them is the network
//     backend's business.
package policy
