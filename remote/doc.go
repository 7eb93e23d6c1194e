// Package remote is a ringfence.Sandbox on a remote agent-sandbox runtime
// (kubernetes-sigs/agent-sandbox, KEP-539.2 "sandboxd"): commands over the
// gRPC process.v1.ProcessService, files over the REST API. The same
// program runs against a local sandbox (ringfence.New) or a pod running
// `ringfence serve` by changing the one line that makes the Sandbox.
//
//	sb, err := remote.New(remote.Options{GRPC: "10.0.0.7:9090", REST: "10.0.0.7:8080", Token: tok, TLS: tlsConf})
//	res, err := sb.Exec(ctx, []string{"go", "test", "./..."}, ringfence.ExecOptions{Dir: "src"})
//
// Exec is a Start stream (stdin, live output and a terminal work); a
// timeout or the context's end stops the process through the server
// (SIGKILL to its group). Session starts background processes with stdin,
// signals (SIGINT, SIGTERM, SIGKILL: the standard's three), terminal
// resize and Wait — the shape of ringfence.Session and ringfence.Process,
// which are concrete types and cannot be implemented remotely.
//
// Against ringfence serve, each result carries ringfence's outcome (kind,
// violations, narration, the model-facing outcome, backend, enforcement)
// from the additive trailing metadata (package internal/sandboxd/wire, the
// server's own definitions); against the reference daemon, which sends
// none, the outcome is judged from the exit code (0 ok, else
// nonzero-exit) and the narration is generic. As locally, a result's Kind
// is derived from its Outcome.Kind only (outcome.ResultKind). Errors wrap the values a local Sandbox returns —
// pathrule.ErrPathRefused (checked by name before anything is sent, and a
// cwd the server refuses), policy.ErrDenied (403), fs.ErrNotExist (404),
// ringfence.ErrSessionFull — or this package's ErrUnreachable, ErrAuth,
// ErrShuttingDown, ErrTooLarge, ErrInvalid, ErrProcessNotFound.
//
// # Threat model
//
// The client trusts the server's outcome claims only as far as the
// transport is authenticated: over plaintext anyone on the path can forge
// "success" or strip a violation, so a token is refused over plaintext to
// any host but loopback, and TLS (Options.TLS, with the server's CA) is
// what makes a result the server's word. Even then the outcome is what
// the server says, not what the client saw: the client cannot observe the
// confinement. Options.Isolation is the caller's trust in the deployment;
// every result is checked against the server's enforcement report, and a
// server that reports less (files or network "none", the landlock backend
// for processes) or no outcome at all fails the call with ErrClaimNotHeld
// (the result still returned), so a misconfigured or substituted server
// is noticed at the first command rather than trusted silently.
// Model paths are read by internal/modelpath before they are sent, as a
// local Sandbox reads them ("/workspace/a.go" is "a.go"; a refusal is the
// same path-rejected outcome.Error; TestRemotePathsMatchLocal), and what
// comes back is bounded: ReadFile refuses a file over maxBytes (never
// cut), a result keeps MaxOutput bytes of each stream and stops a
// command that prints past it with no live reader (over-budget).
//
// # Tested
//
// Against real `ringfence serve` processes built from this tree
// (TestMain): the conformance suite, one server per check
// (TestConformanceThroughRemote: every check passes but the one listed
// in remoteGaps, for the shared session below; sessions/* are not
// claimed, as they need a *ringfence.Session); the escape suite of
// initproc/inittest, a server per attack started with the attack's policy
// as flags, as root and as uid 65534 (TestEscapesThroughRemote,
// TestEscapesThroughRemoteNonRoot: every attack held but "outlive");
// round trips, sessions, timeouts and the transport's errors. Against a
// reference-like server with no extension: the degraded results and
// errors, and the claim check refusing to trust it.
//
// # Gaps
//
//   - On ringfence serve all processes share one session (one pid
//     namespace, /tmp and loopback, as in one pod): a double-forked daemon
//     — reparented to the session's init once its parent exits — outlives
//     its Exec until the server's session ends, and two clients' processes
//     can see and signal each other. (A process stopped for its timeout or
//     its caller's cancel takes everything still below it, setsid'd
//     children included.) A local Sandbox's Exec is one-shot. The
//     conformance check isolation/processes/daemon-outlives fails through
//     this client for that reason, and the escape suite's "outlive" works.
//   - ExecOptions.NetworkAsk is not carried (the API has no way to ask);
//     Terminal gets a fixed 24x80 terminal (no Input/Size relay).
//   - Signals other than SIGINT, SIGTERM and SIGKILL cannot be sent.
//   - From a ringfence serve older than the outcome field, or the
//     reference daemon, a result's Outcome is only its kind (the first
//     situation of its exec kind: outcome.SituationOf).
//   - A signalled process's exit code is the standard's -1: the result has
//     no exit code and, without ringfence's outcome, no signal name.
//   - Output past MaxOutput is dropped from the result (Truncated counts
//     it); with a live reader the process keeps running.
//   - Only one server per Sandbox: Options takes one gRPC and one REST
//     address, no failover between replicas.
package remote
