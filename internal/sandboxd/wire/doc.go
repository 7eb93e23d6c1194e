// Package wire is what ringfence serve and its client (package remote)
// agree on beyond the standard's messages: ringfence's outcome extension —
// gRPC trailing metadata on every process's end (TrailerKind,
// TrailerOutcome) and a response header on every /v1/files answer
// (OutcomeHeader) — the standard's signal table, and the bound on one
// WriteStdin. Defined once here, so the two sides cannot drift; both link
// only this package of each other.
//
// Threat model: the client reads what a server sent, which may be a
// reference daemon, an old ringfence, or hostile. FromTrailer believes an
// outcome only when exactly one of each key came, the JSON parses, its
// kind is one of the seven exec kinds, equals the kind key, and agrees
// with the model-facing outcome's kind when one came (outcome.ExecKindOf);
// anything else is no extension, and the client judges from the exit code.
// FuzzFromTrailer throws arbitrary trailers at it.
package wire
