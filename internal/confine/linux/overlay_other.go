//go:build !linux

package linux

// overlayUnsupported: there is no overlayfs off Linux.
func overlayUnsupported(string) string { return "overlayfs exists on Linux only" }

func homeSubmounts(string) string { return "" }
