package bwrap

import "github.com/ringfence/ringfence/outcome"

// Name is this backend's name, as --backend and audit records spell it.
const Name = "bwrap"

// Dialect is how this backend reports what happened on stderr. It is
// consulted only when the status channel is silent: the shim's records
// are the evidence; these strings are the fallback.
//
// A denial inside the bwrap view is the kernel refusing a write to a
// read-only bind ("Read-only file system") or a permission check on a
// masked or foreign path. bwrap's own fatal messages start "bwrap: " and
// it exits 1; "bwrap: execvp" is carved out because, without the shim, it
// is an ordinary missing program rather than a sandbox failure.
func Dialect() outcome.Dialect {
	return outcome.Dialect{
		Backend:          Name,
		DenialSignatures: []string{"Read-only file system", "Permission denied", "Operation not permitted"},
		RunnerFailure: []outcome.RunnerFailureRule{
			{AllowedExitCodes: []int{1}, FatalSignatures: []string{"bwrap: "}, ExcludedSignatures: []string{"bwrap: execvp"}},
			{AllowedExitCodes: []int{125}, FatalSignatures: []string{"ringfence __exec:"}},
		},
	}
}
