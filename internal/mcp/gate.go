package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/tools"
)

// ErrNoElicitation is the gate's answer when the client cannot ask a
// person (it did not declare the elicitation capability): the call is
// gate-unavailable at once instead of waiting for the timeout.
// It wraps tools.ErrNoApprover, so the model is told the policy decided.
var ErrNoElicitation = fmt.Errorf("mcp: the client does not support elicitation: %w", tools.ErrNoApprover)

// The choices of the approval form, and its fields.
const (
	choiceOnce    = "approve-once"
	choiceSession = "approve-session"
	choiceDecline = "decline"
	fieldDecision = "decision"
	fieldNote     = "note"
	maxNote       = 500
)

// approvalSchema is the form the person fills in: one choice and a note
// for the model. The choice is a titled single-select enum as MCP
// 2025-11-25 defines it (oneOf of const + title); the deprecated
// enumNames is not sent. Decline is the default, so a form submitted
// without a choice approves nothing.
var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		fieldDecision: map[string]any{
			"type": "string", "title": "Decision", "default": choiceDecline,
			"oneOf": []map[string]any{
				{"const": choiceOnce, "title": "Approve this call"},
				{"const": choiceSession, "title": "Approve for this session"},
				{"const": choiceDecline, "title": "Decline"},
			},
		},
		fieldNote: map[string]any{
			"type": "string", "title": "Note for the agent (optional)", "maxLength": maxNote,
		},
	},
	"required": []string{fieldDecision},
}

// elicitGate is tools.Gate over MCP elicitation: it asks the person at the
// client of one session. It is the only way an approval enters the server;
// nothing in a tool call's arguments reaches it.
type elicitGate struct{ ss *sdk.ServerSession }

func (g *elicitGate) Ask(ctx context.Context, q tools.Question) (tools.Answer, error) {
	if !canElicit(g.ss) {
		return tools.Answer{}, ErrNoElicitation
	}
	res, err := g.ss.Elicit(ctx, &sdk.ElicitParams{Message: q.Summary, RequestedSchema: approvalSchema})
	if err != nil {
		return tools.Answer{}, err
	}
	return answerOf(res), nil
}

func canElicit(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
		return false
	}
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // neither set means form
}

// answerOf reads the person's answer. Anything but an accepted form with a
// known approving choice declines: a cancel, a decline, a missing or
// unknown choice.
func answerOf(res *sdk.ElicitResult) tools.Answer {
	if res == nil {
		return tools.Answer{Decision: tools.Decline}
	}
	// The note reaches the model whatever the answer: with an approval
	// (tools says it after the result) and with a decline, including a
	// client's own decline button if it sent the form's content along.
	note, _ := res.Content[fieldNote].(string)
	note = cutRunes(note, maxNote)
	a := tools.Answer{Decision: tools.Decline, Note: note}
	if res.Action != "accept" {
		return a
	}
	switch res.Content[fieldDecision] {
	case choiceOnce:
		a.Decision = tools.ApproveOnce
	case choiceSession:
		a.Decision = tools.ApproveSession
	}
	return a
}

// cutRunes keeps at most n characters of s, never splitting one.
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
