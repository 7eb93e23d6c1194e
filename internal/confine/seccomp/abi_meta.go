package seccomp

// Linux ABI values for the set-id, metadata, vsock and datagram rules
// (meta.go), written out for the same reason as abi.go; abi_linux_test.go
// and meta_abi_linux_test.go check them against x/sys/unix.
const (
	errEAFNOSUPPORT = 97

	afVsock = 40

	sISUID = 0o4000
	sISGID = 0o2000

	oTmpfileBit = 0x400000 // __O_TMPFILE, the same on amd64 and arm64
)
