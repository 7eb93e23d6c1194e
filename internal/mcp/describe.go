package mcp

import (
	"context"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/policy"
	"github.com/ringfence/ringfence/tools"
)

// definitions are the tools as clients list them: the tool layer's name,
// title, description and input schema, its hints as MCP annotations, and
// an output schema of the structured content.
//
// They are listed once for the whole server, while each session has its
// own Set (and a gate only when its client may approve). The listing
// Set is given a gate that is never asked, so the hints assume approvals
// are possible: a command's openWorldHint is then true under deny as
// well, since an approved network command runs with the network widened
// (tools.Hints) — a hint may overstate, never understate.
func definitions(cfg Config) []*sdk.Tool {
	opts := cfg.Tools
	opts.Gate = listingGate{}
	var out []*sdk.Tool
	for _, d := range tools.New(cfg.Sandbox, opts).Definitions() {
		schema, err := outputSchema(d.Data)
		if err != nil {
			panic("mcp: the output schema of " + d.Name + ": " + err.Error()) // a programming error, caught by every test
		}
		h := d.Hints
		out = append(out, &sdk.Tool{
			Name: d.Name, Title: d.Title, Description: d.Description,
			InputSchema: d.InputSchema, OutputSchema: schema,
			Annotations: &sdk.ToolAnnotations{
				Title:           d.Title,
				ReadOnlyHint:    h.ReadOnly,
				DestructiveHint: &h.Destructive,
				IdempotentHint:  h.Idempotent,
				OpenWorldHint:   &h.OpenWorld,
			},
		})
	}
	return out
}

// listingGate only marks the listing Set as one whose sessions may be
// asked; it is never asked (the listing Set runs nothing) and would
// decline if it were.
type listingGate struct{}

func (listingGate) Ask(context.Context, tools.Question) (tools.Answer, error) {
	return tools.Answer{Decision: tools.Decline}, nil
}

// instructions tell the model, once per session, what the workspace is,
// how paths work and how approvals work (MCP server instructions).
func instructions(sb *sandbox.Local) string {
	mount := sb.MountPath()
	mode, network := "the person's", "the person's"
	if pol, err := sb.Policy(policy.Request{}); err == nil {
		mode, network = pol.Mode.String(), pol.Network.Mode.String()
	}
	return strings.Join([]string{
		"ringfence gives you one workspace — a directory on the person's machine — and runs your commands in a sandbox over it.",
		"Paths: the workspace is " + mount + ". File tools take a path relative to the workspace (src/main.go) or under " + mount +
			" (" + mount + "/src/main.go); anything else — a host path, ~, .. out of the workspace — is refused before anything is done.",
		"Commands (run_command, run_code) start in " + mount + " and see the same files there. What they may write, and what they may reach " +
			"on the network, is the person's policy (file mode " + mode + ", network " + network + "); the sandbox refuses the rest and the " +
			"result says what was refused.",
		"read_file, read_media, list_files, glob_files and grep_files only read; write_file and edit_file change files; run_command and run_code may do anything the policy allows.",
		"Approvals: a command or a write that needs more than the policy allows may be put to the person in your client (approve once, " +
			"approve for this session, or decline, with an optional note for you, which the result shows). A decline or a refusal is the " +
			"person's or the policy's answer: do the work another way, do not retry the same call. If nobody can be asked, the call is refused.",
		"Every result's structured content has the outcome (outcome.kind: ok, path-rejected, denied-by-policy, …) and the tool's data.",
	}, "\n")
}
