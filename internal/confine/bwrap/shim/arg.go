package shim

// Arg is the entry point (internal/entry) of the exec shim: the argv[1]
// bwrap is given after the shim's path.
const Arg = "__exec"
