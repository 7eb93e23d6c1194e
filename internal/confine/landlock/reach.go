package landlock

import (
	"fmt"
	"strings"

	"github.com/ringfence/ringfence/policy"
)

// outOfReach is the reason that says what the command cannot touch under
// this backend with p on a kernel with Landlock ABI abi: the gaps are
// their own reasons, and a reader of a partial enforcement must also learn
// what does hold.
func outOfReach(p *policy.Policy, abi int) string {
	held := []string{
		fmt.Sprintf("writes outside the writable roots and reads of denied paths (Landlock ABI %d)", abi),
		"tracing or reading the memory of any process (seccomp, Landlock)",
		"mounts, kernel keyrings, bpf, io_uring, new user namespaces and every capability (seccomp, no capabilities, no_new_privs)",
		"host unix sockets by path, but for the policy's own (each connect checked)",
	}
	if abi >= 6 {
		held = append(held, "signals to any process outside the command's own Landlock domain, its init included, "+
			"so what the command leaves running ends with it")
	}
	switch p.Network.Mode {
	case policy.NetAllowAll:
	case policy.NetDomains:
		held = append(held, "IP networking but through the policy proxy: every socket but unix and TCP refused, "+
			"every TCP connect made by the seccomp supervisor and only to the proxy on 127.0.0.1 (Landlock allows only its ports)")
	default:
		held = append(held, "IP networking: every socket family but unix refused (seccomp)")
	}
	return "out of reach: " + strings.Join(held, "; ")
}
