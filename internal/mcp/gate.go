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
// for the model.
var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		fieldDecision: map[string]any{
			"type": "string", "title": "Decision",
			"enum":      []string{choiceOnce, choiceSession, choiceDecline},
			"enumNames": []string{"Approve this call", "Approve for this session", "Decline"},
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
	if res == nil || res.Action != "accept" {
		return tools.Answer{Decision: tools.Decline}
	}
	note, _ := res.Content[fieldNote].(string)
	if len(note) > maxNote {
		note = note[:maxNote]
	}
	a := tools.Answer{Decision: tools.Decline, Note: note}
	switch res.Content[fieldDecision] {
	case choiceOnce:
		a.Decision = tools.ApproveOnce
	case choiceSession:
		a.Decision = tools.ApproveSession
	}
	return a
}
