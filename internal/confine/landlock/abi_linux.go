package landlock

import ll "github.com/landlock-lsm/go-landlock/landlock/syscall"

// ABI is the Landlock ABI version this kernel offers (0: none).
func ABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}
