//go:build !(linux && amd64)

package initimage

// blob is empty where no init is generated: the init is the running
// binary (initproc.SelfExe).
const blob = ""

// recordText is empty with blob.
const recordText = ""
