package initimage

import (
	"github.com/ringfence/ringfence/internal/confine/initimage/imagesrc"
	"github.com/ringfence/ringfence/internal/confine/initproc"
)

// ID names the init this process executes, for caches of what a host
// allowed that init to do (the linux backend's per-boot probe marker): the
// first 16 hex digits of the carried blob's sha256 as recorded at
// generation, or "self" when the running binary is the init. A new
// ringfence with another init probes again instead of trusting what an old
// one found.
func ID() string {
	path, err := Path()
	if err != nil || blob == "" || path == initproc.SelfExe {
		return "self"
	}
	rec, err := imagesrc.ParseRecord([]byte(recordText))
	if err != nil {
		return "self"
	}
	return rec.Binary[:16]
}
