package sandbox

import (
	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/policy"
)

// WorkspaceFor resolves req against the deployment's defaults, as
// ExecRequest does, and opens the file layer over the resulting policy. It
// is how a write a person approved (req.Approval carrying a write entry for
// one path) is done through the same fence as every other write: the
// approval widens the policy, never a flag in the call. A single-call
// approval is spent here. The caller closes the workspace.
func (l *Local) WorkspaceFor(req policy.Request) (*workspace.Workspace, error) {
	pol, err := policy.Resolve(req, l.defaults)
	if err != nil {
		return nil, err
	}
	return workspace.New(pol, workspace.Options{MountPath: l.cfg.MountPath})
}
