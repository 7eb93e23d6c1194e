// Package sandboxd serves kubernetes-sigs/agent-sandbox's runtime API
// (KEP-539.2, "sandboxd") as `ringfence serve`: the gRPC
// process.v1.ProcessService (package process, spec/process/v1) and the
// REST API (files, health, metadata: package files) on two listeners,
// with ringfence's confinement under every process. What ringfence adds
// to the standard's wire (the outcome trailer and header, the signal
// table, the stdin bound) is defined once in package wire, which the
// client (package remote) shares.
//
// Serve wires them: server reflection on (package reflection; grpcurl works without the
// .proto), an optional bearer token on every gRPC call and every REST
// request but /v1/health (the kubelet's readiness probe carries none),
// optional TLS. Graceful shutdown, in this order: the REST handler's
// health turns 503 (SetShuttingDown: Kubernetes stops routing), the
// process service refuses new work and sends SIGTERM to every process,
// SIGKILL (the session's end) after ShutdownTimeout, then both servers
// stop — Start streams have ended with their processes, so GracefulStop
// does not wait on them; a call still running past the bound is cut.
// Without a REST handler the REST port serves Health (/v1/health only).
//
// Threat model: the API's caller is the agent (or whoever reaches the
// port). By default both ports listen on loopback; cmd/ringfence refuses
// any other address without a token or mutual TLS, and denies the
// sandbox the token and key files. Commands started through the API run
// confined (package process): they cannot reach the server on the host's
// loopback (their own network namespace) unless the policy's network is
// allow-all, where the token is the wall.
//
// Gaps: the token is one shared secret (no per-client identity or
// rate limit); TLS without client certificates encrypts but does not
// authenticate, so cmd/ringfence accepts it off loopback only with
// --tls-client-ca or a token.
package sandboxd
