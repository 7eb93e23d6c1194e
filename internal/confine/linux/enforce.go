package linux

import (
	"strings"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/seccomp"
	"github.com/ringfence/ringfence/policy"
)

// Guard turns on seccomp's create guard when a carve-out does not exist
// yet. Such a path cannot be mounted over (a mount needs a mountpoint, and
// making one would leave it on the host, while removing a host mountpoint
// unmounts it in every namespace), and Landlock cannot refuse one name in
// a directory it lets the command write; the guard performs every
// creating call itself and refuses names at or beneath the carve-outs.
// Carve-outs the name guard holds (Plan.Named) are left to it. exists is
// injected for tests.
func Guard(plan Plan, exists func(string) bool) Plan {
	named := map[string]bool{}
	for _, c := range plan.Named {
		named[c] = true
	}
	var abs []string
	missing := false
	for _, c := range plan.CarveOuts {
		if !named[c] {
			abs = append(abs, c)
			missing = missing || !exists(c)
		}
	}
	if missing {
		plan.Seccomp.Protected = plan.Mount.all(abs)
	}
	return plan
}

// Enforce states what the plan holds the command to, as a fact. exists
// reports whether a host path exists now (injected for tests). A carve-out
// that does not exist and is not guarded makes files partial.
func Enforce(p *policy.Policy, plan Plan, exists func(string) bool) confine.Enforcement {
	e := confine.Enforcement{Files: confine.FilesFull, Network: confine.NetFull}
	guarded := seccomp.Protect(append(append([]string{}, plan.Seccomp.Protected...), plan.Mount.all(plan.Named)...))
	var missing []string
	for _, op := range plan.View.Ops {
		host := plan.hostPath(op)
		if (op.Kind == initproc.BindRO || op.Kind == initproc.Mask) && op.Protected && !exists(host) && !guarded.Covers(op.Target) {
			missing = append(missing, relTo(p.Root, host))
		}
	}

	for _, op := range plan.View.Ops {
		if op.Kind == initproc.ProcHost {
			// The container's other processes are listed: not a write,
			// but more than the policy's reads allow.
			e.Files = confine.FilesPartial
		}
	}
	if len(missing) > 0 {
		e.Files = confine.FilesPartial
		e.Reasons = append(e.Reasons, "protected paths that do not exist yet can be created: "+strings.Join(missing, ", "))
	}
	if p.Network.Mode == policy.NetAllowAll {
		// The host's network namespace: every address is reachable.
		// Its abstract unix sockets are the host's too; the supervisor
		// connects only to listeners inside the sandbox
		// (Seccomp.PeerCheckAbstract).
		e.Network = confine.NetNone
		e.Reasons = append(e.Reasons, "allow-all shares the host network namespace (its abstract unix sockets connect only to the sandbox's own listeners)")
	}
	return e
}

// relTo names path relative to root, so a reason never shows the host root.
func relTo(root, path string) string {
	if rest, ok := strings.CutPrefix(path, root+"/"); ok {
		return rest
	}
	return path
}

// hostPath is the host path an op stands for: its source (layer ops keep
// it, masks included), else its target.
func (plan Plan) hostPath(op initproc.Op) string {
	if op.Source != "" {
		return op.Source
	}
	return op.Target
}
