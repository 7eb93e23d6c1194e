package policy

import "testing"

// Preview leaves a single-call approval unspent; Resolve then spends it.
func TestPreviewDoesNotSpend(t *testing.T) {
	d := Defaults{Root: "/w", Mode: WorkspaceWrite}
	ap := Approve(Grant{Scope: SingleCall, Network: &Network{Mode: NetAllowAll}})
	req := Request{Cwd: "/w", Approval: ap}
	p, err := Preview(req, d)
	if err != nil || p.Network.Mode != NetAllowAll || ap.Spent() {
		t.Fatalf("preview: %v, %+v, spent %v", err, p, ap.Spent())
	}
	if _, err := Resolve(req, d); err != nil || !ap.Spent() {
		t.Fatalf("resolve after preview: %v, spent %v", err, ap.Spent())
	}
	if _, err := Preview(req, d); err == nil {
		t.Fatal("a spent approval previews")
	}
}
