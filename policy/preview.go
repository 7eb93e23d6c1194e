package policy

// Preview computes the policy Resolve would, without spending a
// single-call approval: a caller that may decide not to use the policy (a
// session that refuses a call whose policy differs from its own, so the
// call runs one-shot instead) previews, and resolves only once it will run
// under it. The approval stays usable exactly as before the preview.
func Preview(req Request, d Defaults) (*Policy, error) {
	grant, err := req.Approval.usable(d.now(), req.SessionID)
	if err != nil {
		return nil, err
	}
	return resolve(req, d, grant)
}
