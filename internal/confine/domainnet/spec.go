package domainnet

import "github.com/ringfence/ringfence/internal/confine/domainnet/sandboxnet"

// Spec is the in-namespace side of `--network domains` (sandboxnet.Spec:
// the sandbox's pid 1 links package sandboxnet alone, without this
// package's supervisor half).
type Spec = sandboxnet.Spec

// ResolvConf names the in-namespace DNS stub; every backend binds it over
// /etc/resolv.conf in the view. One attempt and a short timeout: the stub
// answers at once or not at all. single-request makes glibc ask A and
// AAAA one after the other with send(2) rather than together with
// sendmmsg(2): the stub answers locally, so it costs nothing, and under
// the bwrap shim's supervision a supervised sendmmsg fails (the shim
// cannot store msg_len back: /proc is read-only there and bwrap's filter
// refuses process_vm_writev), which glibc reports as a temporary
// resolution failure.
const ResolvConf = "# ringfence: the sandbox's DNS stub (names are decided by the proxy)\nnameserver 127.0.0.1\noptions timeout:1 attempts:1 single-request\n"
