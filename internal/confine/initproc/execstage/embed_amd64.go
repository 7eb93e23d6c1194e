//go:build linux && amd64

package execstage

import _ "embed"

//go:embed stage_linux_amd64.bin
var image []byte

// Image is the exec stage's executable, or nil where none is carried.
func Image() []byte { return image }
