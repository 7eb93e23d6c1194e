package initimage

import "github.com/ringfence/ringfence/internal/confine/initimage/imagesrc"

// sourcesAsRecorded says whether the carried blob was built from the
// sources on disk: the digest of the init's sources (imagesrc.Digest, one
// `go list` of the init's closure, ≈0.15 s) equals the one recorded when
// the blob was generated. Only a test binary asks, once, from the package
// directory `go test` runs it in. Anything that stops the check (no go
// tool, not inside the module) answers no, and the test runs the init as
// written (the running binary). A test binary re-run as another user
// from outside the module is told the answer (inittest.Rerun).
func sourcesAsRecorded() bool {
	return imagesrc.SourcesAsRecorded(".", []byte(recordText))
}
