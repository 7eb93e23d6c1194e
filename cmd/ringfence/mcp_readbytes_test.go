package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPMaxReadBytes: the deployment raises read_file's bound with
// --max-read-bytes; without it a 1 MiB file is refused with its size. The
// text goes once: the structured result holds the range, not the lines.
func TestMCPMaxReadBytes(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat(strings.Repeat("x", 63)+"\n", 16384) // 1 MiB
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	read := func(args ...string) *sdk.CallToolResult {
		ctx, cs, stop := startMCP(t, append([]string{"--root", root}, args...)...)
		defer stop()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "big.txt"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := read(); !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "max_bytes") {
		t.Fatalf("control: 1 MiB read under the default bound: %+v", res.Content)
	}
	res := read("--max-read-bytes", "2097152")
	text := res.Content[0].(*sdk.TextContent).Text
	if res.IsError || !strings.HasSuffix(text, "16384\t"+strings.Repeat("x", 63)+"\n") {
		t.Fatalf("raised bound: error %v, %d bytes of text", res.IsError, len(text))
	}
	st, _ := res.StructuredContent.(map[string]any)
	data, _ := st["data"].(map[string]any)
	if data["lines"] != float64(16384) || data["content"] != nil || len(res.Content) != 1 {
		t.Fatalf("structured content: %v", data)
	}
	for _, bad := range []string{"0", "-1", "2000000000"} {
		_, err := runCobra(t, "mcp", "--root", root, "--max-read-bytes", bad)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != exitUsage || !strings.Contains(err.Error(), "--max-read-bytes") {
			t.Errorf("--max-read-bytes %s: %v", bad, err)
		}
	}
}
