package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/tools"
)

// The run_code examples of docs/run_code.md and README.md are real calls:
// each is made through the tools, in a workspace holding the document's
// input files, and the result text docs/run_code.md shows is the text
// produced.
func TestRunCodeDocExamples(t *testing.T) {
	needBackend(t, "auto")
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("the examples are Python: %v", err)
	}
	doc, err := fencedBlocks("../../docs/run_code.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := fencedBlocks("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ws := workspace(t)
	var calls []docBlock
	var want string
	for _, b := range doc {
		switch {
		case b.marker("doc-file") != "":
			dst := filepath.Join(ws, b.marker("doc-file"))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, []byte(b.body), 0o644); err != nil {
				t.Fatal(err)
			}
		case b.marker("checked-by") == "TestRunCodeDocExamples" && b.info == "json":
			calls = append(calls, b)
		case b.marker("checked-by") == "TestRunCodeDocExamples" && b.info == "text":
			want = b.body
		}
	}
	for _, b := range readme {
		if b.marker("checked-by") == "TestRunCodeDocExamples" {
			calls = append(calls, b)
		}
	}
	if len(calls) != 2 || want == "" {
		t.Fatalf("want the call and result of docs/run_code.md and the README's call; found %d calls, result %v", len(calls), want != "")
	}
	sb, err := ringfence.New(ringfence.Config{Root: ws, MountPath: "/workspace"})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	set := tools.New(sb, tools.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i, b := range calls {
		if !json.Valid([]byte(b.body)) {
			t.Fatalf("call %d (line %d) is not JSON", i, b.line)
		}
		res := set.Call(ctx, "run_code", json.RawMessage(b.body))
		if res.Outcome.Kind != outcome.OK {
			t.Fatalf("call at line %d: %s: %s", b.line, res.Outcome.Kind, res.Text)
		}
		if i == 0 && !outputMatches(want, res.Text) {
			t.Errorf("docs/run_code.md's result differs from the real one\n--- document\n%s--- produced\n%s", want, res.Text)
		}
		if i == 1 && !strings.Contains(res.Text, `"count.txt"`) {
			t.Errorf("README's call: %s", res.Text)
		}
	}
}
