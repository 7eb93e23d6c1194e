// Package ringfence confines the commands, code and file operations of AI
// agents.
//
// An agent asks to run `pytest`, read a file, write a patch. ringfence
// resolves what that call may touch (package policy), reads a command for
// what it does (package execpolicy), confines it with the kernel's own
// mechanisms — user, mount, pid, net, ipc and uts namespaces, Landlock,
// seccomp, resource limits — runs it under supervision, and tells the model
// what happened in words it can act on (package outcome).
//
// Sandbox is the contract: a workspace that can also run commands and says
// what it isolates. Local is ringfence's own implementation; package
// conformance checks any implementation the same way; package tools turns a
// sandbox into the tool definitions an agent calls.
//
// The zero Config (only Root set) is the agent profile, policy.AgentDefaults:
// the workspace writable, the host readable, no network. A context
// deadline is reported as KindTimedOut; an Exec whose context is already
// done returns an error wrapping context.DeadlineExceeded or
// context.Canceled. A command that could not be run exits 126 or 127, on
// every backend. ExecOptions.Terminal runs a command on a new
// pseudo-terminal, never the user's own.
//
// Threat model: the agent (and the model behind it) is untrusted. Requests
// from it may only narrow the deployment's policy; widening takes an
// approval minted by a person (policy.Approve). ringfence fails closed: when
// no backend on this host can enforce a confining policy, Exec refuses with
// an error wrapping policy.ErrUnavailable instead of running unconfined.
// What each backend cannot enforce is reported (Enforcement), never hidden:
// see docs/threat-model.md and docs/backends.md.
package ringfence
