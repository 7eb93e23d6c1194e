package initproc

import "github.com/ringfence/ringfence/internal/confine/domainnet/sandboxnet"

// HandoffFD is the init's end of the handoff socket pair (ExtraFiles[3])
// when Spec.Proxy is set: a SEQPACKET socket over which every connection
// the in-namespace listeners accept goes to the supervisor's policy proxy.
// Close-on-exec like every inherited descriptor above StatusFD, so the
// command never holds it.
const HandoffFD = ImageFD + 1

// ProxySpec is the in-namespace side of `--network domains`
// (sandboxnet.Spec), served by the init on HandoffFD.
type ProxySpec = sandboxnet.Spec
