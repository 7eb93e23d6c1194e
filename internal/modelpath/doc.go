// Package modelpath is the one reading of a path a model wrote: every
// layer that takes a model path (the tools' permission declarations, the
// workspace's operations, the facade's working directory) goes through it,
// so the three agree on what a path means and how a refusal is shown.
//
// A model path is relative ("src/a.go") or under the mount path
// ("/workspace/src/a.go"; the mount path alone, or with a trailing "/", is
// the workspace itself). Mount stripping happens first, exactly once, then
// pathrule.Clean decides: the answer is a clean relative path, or an
// outcome.Error of kind path-rejected naming pathrule's reason and the
// path as the model gave it, cut at MaxShown bytes (the one bound). The
// error wraps pathrule.ErrPathRefused.
//
// The mount path's default, "/workspace", is defined once, in
// outcome.DefaultMountPath (the narration's own default); Mount("") means
// it here too.
//
// Threat model: the input is model-authored. Only the mount path's exact
// prefix followed by "/" is stripped ("/workspacex" stays absolute and is
// refused); whatever is left is pathrule's to refuse, so an absolute path
// anywhere else, "..", "~", a drive, a backslash or a NUL byte never
// reaches a host path. The refused path is echoed as given, bounded, never
// rewritten (outcome/given.go narrates it).
package modelpath
