package tools

import (
	"context"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// WriteData is write_file's and edit_file's structured result.
type WriteData struct {
	Path         string `json:"path"`
	Bytes        int64  `json:"bytes"`
	Created      bool   `json:"created"`
	Replacements int    `json:"replacements,omitempty"`
}

// writeOp is one write through a workspace: the default one, or one whose
// policy an approval widened.
type writeOp func(*workspace.Workspace) (workspace.WriteResult, error)

// write does op under the deployment's policy. When the policy refuses
// the path itself (outside the writable roots, or a read-only path inside
// one) and a person can be asked, the gate is asked; an approval becomes a
// write entry for exactly that path, resolved into a policy, and op is
// done again through a workspace over that policy. A hard-linked target is
// never asked about: the other name may be anywhere.
func (s *Set) write(ctx context.Context, tool, path, what string, op writeOp) Result {
	res, err := op(s.sb.Workspace())
	if err == nil {
		return s.written(res)
	}
	o := outcomeOf(err)
	rel, rerr := s.rel(path, false)
	if rerr != nil || s.nc.HostRoot == "" || !needsApproval(o, s.model(rel)) {
		return s.failed(o)
	}
	return s.approvedWrite(ctx, tool, rel, what, o, op)
}

func needsApproval(o outcome.Outcome, modelPath string) bool {
	if o.Path != modelPath {
		return false // a parent directory was refused: approving the file would not help
	}
	return o.Kind == outcome.OutsideWriteRoot ||
		(o.Kind == outcome.DeniedByPolicy && o.Axis == "write" && o.Reason != workspace.ReasonAliased)
}

func (s *Set) approvedWrite(ctx context.Context, tool, rel, what string, refused outcome.Outcome, op writeOp) Result {
	mp := s.model(rel)
	key := writeKey(mp)
	audit := AuditInfo{Gate: gateSession}
	ap, ok := s.remembered([]string{key}, false)
	if !ok {
		if s.opts.Gate == nil {
			// Nobody can be asked: the policy's own refusal stands.
			return Result{Outcome: refused, Audit: AuditInfo{Gate: gateNone}}
		}
		q := Question{Tool: tool, Summary: writeSummary(tool, mp, what, refused), Permissions: []string{permWrite + mp}}
		d, fo, word := s.ask(ctx, q)
		audit.Gate = word
		if fo != nil {
			return Result{Outcome: *fo, Audit: audit}
		}
		ap = s.mint(policy.Grant{
			Entries:       []policy.Entry{{Path: s.nc.HostRoot + "/" + rel, Access: policy.Write}},
			Justification: tool + " " + mp,
		}, d)
		if d == ApproveSession {
			s.remember([]string{key}, ap)
		}
	}
	audit.Approval = ap.String()
	r := s.writeWith(ap, op)
	r.Audit = audit
	return r
}

func (s *Set) writeWith(ap *policy.Approval, op writeOp) Result {
	ws, err := s.sb.WorkspaceFor(policy.Request{Approval: ap, SessionID: s.opts.SessionID})
	if err != nil {
		return s.failed(outcome.Outcome{Kind: outcome.GateUnavailable, Reason: "error"})
	}
	defer ws.Close()
	res, err := op(ws)
	if err != nil {
		return s.failed(outcomeOf(err))
	}
	return s.written(res)
}

func (s *Set) written(res workspace.WriteResult) Result {
	d := &WriteData{Path: res.Path, Bytes: res.Bytes, Created: res.Created, Replacements: res.Replacements}
	text := outcome.Written(res.Path, res.Bytes, res.Created, res.Replacements)
	return Result{Text: text, Outcome: outcome.Outcome{Kind: outcome.OK, Path: res.Path}, Data: d}
}

// writeSummary is the person-facing question for a refused write.
func writeSummary(tool, mp, what string, refused outcome.Outcome) string {
	why := "it is a read-only path inside a writable root"
	if refused.Kind == outcome.OutsideWriteRoot {
		why = "it is outside the writable roots"
	}
	return tool + " wants to " + what + " " + mp + ", which the policy does not let it write: " + why +
		". Approving allows writing exactly this file, nothing else."
}
