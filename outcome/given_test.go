package outcome

import (
	"strings"
	"testing"
)

// TestGivenPathShownAsGiven: a model that gives a host path is told that
// path is refused — as it wrote it, not rewritten into a /workspace path
// the sentence then calls absolute (issue 18, item 6).
func TestGivenPathShownAsGiven(t *testing.T) {
	c := Context{MountPath: "/workspace", HostRoot: "/home/alice/acme"}
	o := Outcome{Kind: PathRejected, Path: "/home/alice/acme/go.mod", Reason: "absolute"}
	text := Narrate(o, c)
	if !strings.Contains(text, `"/home/alice/acme/go.mod"`) || strings.Contains(text, "/workspace/go.mod") {
		t.Fatalf("the refusal does not name the path as given:\n%s", text)
	}
	if got := c.Scrub(o).Path; got != o.Path {
		t.Fatalf("Scrub rewrote the given path to %q", got)
	}
	// Control: any other kind's path is still scrubbed.
	nf := Outcome{Kind: NotFound, Path: "/home/alice/acme/go.mod"}
	if got := c.Scrub(nf).Path; got != "/workspace/go.mod" {
		t.Fatalf("not-found path = %q, want it scrubbed", got)
	}
	if strings.Contains(Narrate(nf, c), "/home/alice") {
		t.Fatal("a not-found narration shows the host root")
	}
}

// TestGivenPathNoRootOracle: the refusal of a guessed host path reads the
// same whether or not the guess is the host root, so the model cannot
// learn the root by guessing (the rewriting answered exactly that).
func TestGivenPathNoRootOracle(t *testing.T) {
	c := Context{MountPath: "/workspace", HostRoot: "/home/alice/acme"}
	right := Narrate(Outcome{Kind: PathRejected, Path: "/home/alice/acme/go.mod", Reason: "absolute"}, c)
	wrong := Narrate(Outcome{Kind: PathRejected, Path: "/home/alice/other/go.mod", Reason: "absolute"}, c)
	if strings.Replace(right, "acme", "other", 1) != wrong {
		t.Fatalf("the answer depends on whether the guess is the root:\n%s\n%s", right, wrong)
	}
	// Control: the rest of the sentence is still made safe — the host
	// root planted elsewhere (the reason) never shows.
	o := Outcome{Kind: PathRejected, Path: "a", Reason: "/home/alice/acme/x"}
	if strings.Contains(Narrate(o, c), "/home/alice/acme") {
		t.Fatalf("the host root shows outside the given path:\n%s", Narrate(o, c))
	}
}
