// Package backends picks the confinement backend of a sandbox: the
// providers ringfence ships (linux, bwrap, landlock, strongest first), the
// "auto" chain over them, and a per-boot cache of the linux backend's
// expensive probe.
//
// It decides which mechanism confines, never what is allowed: that is the
// resolved policy's, and each provider reports what it enforces
// (confine.Enforcement, confine.Traits).
//
// Threat model: the probe cache can only make ringfence skip a probe, never
// a check — a marker left in the user's cache directory (named by the
// kernel's boot id) lets a later process settle for the quick kernel-switch
// check; if the namespaces are refused after all, the run fails closed (the
// init reports its failed set-up stage). Someone who can write the user's
// cache directory can plant a marker and so lose auto's fallback to a
// weaker backend for one run (a refusal, never an unconfined run). A
// confined command can be such a writer (its workspace holds the cache
// directory: a run in the home directory, XDG_CACHE_HOME in the project),
// so a marker is only ever an empty one, "nothing refused here": a host
// where the probe had to give steps up (linux.Degraded: a container's
// masked /proc, a refused sethostname) is probed fully by every process,
// and a marker naming such steps is ignored — trusting it let a planted
// `{"hostProc":true}` put the host's /proc in every later sandbox's view
// (TestProbeCachedPlantedMarker; TestAttackPlantedProbeMarker in
// internal/sandbox, end to end).
// RINGFENCE_SIMULATE_NO_USERNS, read from ringfence's own environment, can
// only take the linux backend away, and a simulated refusal is never cached.
//
// Gaps: a named backend that is unavailable here is refused, never
// replaced; the bwrap probe cache lives in bwrap itself.
package backends
