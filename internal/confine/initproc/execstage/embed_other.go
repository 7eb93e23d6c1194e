//go:build !(linux && amd64)

package execstage

// Image is the exec stage's executable, or nil where none is carried.
func Image() []byte { return nil }
