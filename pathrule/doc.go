// Package pathrule is the one rule for a path that arrives from a model.
//
// A model names files relative to its workspace. Before anything touches the
// disk, the name is checked and put in canonical form here, so every later
// layer (the workspace, the tools, the conformance suite) is handed the same
// thing and no layer interprets a parent hop on its own.
//
// Refused, by name (see Reason): an empty path or the workspace itself (`.`),
// an absolute path, a drive (`C:`), a leading `~`, any backslash, a NUL, and a
// `..` that climbs above the root. A `..` that stays inside is resolved, `.`
// and empty segments are dropped, and the result never contains `..`.
//
// Threat model: a model that crafts a path to reach outside its workspace, or
// to make two layers disagree about what a path means (a backslash is a
// separator on one platform and a character on another; a NUL ends a path in
// the kernel's own calls). Gap, by design: the rule is lexical. A symbolic
// link inside the workspace can still point outside it; the workspace layer
// resolves every path physically beneath the root for that reason.
//
// Errors carry the refused path and the reason, nothing else, because error
// text reaches logs, traces and the model.
package pathrule
