package confine

import "github.com/ringfence/ringfence/policy"

// ScratchSize is the size of each private tmpfs (/tmp, /dev/shm) of a
// view: the policy's limit when set, else min(1 GiB, RAM/4). A tmpfs left
// at the kernel's default (half the RAM) lets one command press the host
// into swapping or the OOM killer; a bounded one ends in ENOSPC. ram is
// the host's total memory in bytes (0 when unknown: the cap applies).
func ScratchSize(limit, ram int64) int64 {
	if limit > 0 {
		return limit
	}
	size := int64(policy.MaxDefaultScratch)
	if ram > 0 && ram/4 < size {
		size = ram / 4
	}
	return size
}
