package mcp

import (
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/tools"
)

// Structured is every tool's structured content: the outcome as data and
// the tool's own result. It goes out with every field name in snake_case
// (schema.go), as the tool's output schema says.
type Structured struct {
	Outcome outcome.Outcome `json:"outcome"`
	Data    any             `json:"data,omitempty"`
}

// toMCP answers a call: the text the model reads, the media read_media
// returned (an image as image content, anything else — a PDF — as an
// embedded blob under its model path), the outcome as structured content,
// and isError from the result.
func toMCP(r tools.Result) *sdk.CallToolResult {
	content := []sdk.Content{&sdk.TextContent{Text: r.Text}}
	if m := r.Media; m != nil {
		if strings.HasPrefix(m.MIME, "image/") {
			content = append(content, &sdk.ImageContent{Data: m.Data, MIMEType: m.MIME})
		} else {
			content = append(content, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
				URI: "file://" + r.Outcome.Path, MIMEType: m.MIME, Blob: m.Data,
			}})
		}
	}
	st, err := structuredValue(Structured{Outcome: r.Outcome, Data: r.Data})
	if err != nil {
		// Unreachable (every type here marshals, no two names collide —
		// tested); fail closed: the model still reads the text, and the
		// call is an error.
		st, r.IsError = map[string]any{"outcome": map[string]any{"kind": string(outcome.IOFailure)}}, true
	}
	return &sdk.CallToolResult{
		Content:           content,
		StructuredContent: st,
		IsError:           r.IsError,
	}
}
