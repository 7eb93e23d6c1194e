package outcome

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// modelTextDirs are the packages whose output a model reads (tool results,
// MCP content, run_code's text, the facade's ExecResult) and whose
// sentences must therefore come from this package. Paths are relative to
// this package. Of the pipeline (internal/sandbox), the files that narrate a run (result.go,
// network_result.go): its other strings are errors and enforcement facts
// (Enforcement.Reasons), data beside the narration. cmd/ringfence is not
// scanned: what its MCP server sends a model is the tools' Result (tools/),
// and its own strings are help and stderr for the person.
var modelTextDirs = []string{
	"../tools/*.go",
	"../internal/mcp/*.go",
	"../internal/coderun/*.go",
	"../internal/sandbox/result.go",
	"../internal/sandbox/network_result.go",
}

// sentence is what counts as model-facing wording: three words of letters
// in a row separated by single spaces ("was refused by", "is a binary";
// "more follow: call" is not, the colon breaks the run). Schema names,
// kinds, flags, paths and format verbs have no such run.
var sentence = regexp.MustCompile(`\b[A-Za-z][a-z']* [a-z']+ [a-z']+\b`)

// Where wording outside this package is not model narration:
//   - calls that build errors, panics and logs (an error's message is for
//     the caller's logs; the model reads the outcome), and the schema
//     builders and published tool definitions (a tool's description and
//     parameter docs are its API, golden-tested by internal/mcp's
//     tools/list golden);
//   - the model's-argument refusals (invalid, invalidf, unknownField):
//     their text is an invalid-arguments Detail that this package frames;
//   - composite-literal fields that are data this package narrates
//     (Detail) or text for the person, not the model (Summary of a gate
//     question, a definition's desc and title, an elicitation form's
//     "title" and "description");
//   - functions that write for the person or publish definitions
//     (*Description, *Desc, *Summary, *Instructions — the MCP server's
//     instructions are published at initialize like a tool's description —
//     definition, init), and output for the person (fmt.Fprint*);
//   - an assignment to a Detail field or a detail variable (coderun's
//     artifact refusals): data this package frames, as above.
var (
	exemptCalls = map[string]bool{
		"errors.New": true, "fmt.Errorf": true, "panic": true, "fmt.Fprintf": true, "fmt.Fprintln": true,
		"fmt.Fprint": true, "fmt.Sprintf": false, "log.Printf": true, "log.Print": true, "log.Fatal": true, "log.Fatalf": true,
		"slog.Info": true, "slog.Warn": true, "slog.Error": true, "slog.Debug": true,
		"invalid": true, "invalidf": true, "unknownField": true, "usage": true, "usagef": true, "errorf": true,
		"str": true, "integer": true, "boolean": true, "array": true,
		"http.Error": true, ".Error": true, ".reject": true, // a logger's or HTTP error, a JSON-RPC error: not a tool result
	}
	exemptKeys  = map[string]bool{"Detail": true, "Summary": true, "desc": true, "title": true, "Title": true, "Description": true, "description": true}
	exemptFuncs = regexp.MustCompile(`(?i)(description|desc|summary|instructions)$|^definition$|^init$`)
)

// modelTextFindings lists every non-exempt string literal with a sentence
// in the Go files matched by patterns (tests excluded).
func modelTextFindings(t *testing.T, patterns []string) []string {
	var files []string
	for _, p := range patterns {
		m, err := filepath.Glob(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(m) == 0 {
			// A file that moved must move here too, or its text goes unchecked.
			t.Fatalf("%s matches no file", p)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && exemptFuncs.MatchString(fd.Name.Name) {
				continue
			}
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				continue
			}
			walkText(d, false, func(lit *ast.BasicLit) {
				s, err := strconv.Unquote(lit.Value)
				if err != nil || !sentence.MatchString(s) {
					return
				}
				out = append(out, fset.Position(lit.Pos()).String()+": "+lit.Value)
			})
		}
	}
	return out
}

// walkText calls found for every string literal under n not in an exempt
// position.
func walkText(n ast.Node, exempt bool, found func(*ast.BasicLit)) {
	ast.Inspect(n, func(c ast.Node) bool {
		switch c := c.(type) {
		case *ast.BasicLit:
			if c.Kind == token.STRING && !exempt {
				found(c)
			}
		case *ast.Field:
			return false // struct tags
		case *ast.CallExpr:
			if name := callName(c.Fun); exemptCalls[name] || exemptCalls[method(name)] {
				return false
			}
		case *ast.KeyValueExpr:
			if exemptKeys[keyName(c.Key)] {
				walkText(c.Key, exempt, found)
				return false
			}
		case *ast.AssignStmt:
			for _, l := range c.Lhs {
				if strings.EqualFold(lhsName(l), "detail") {
					return false
				}
			}
		case *ast.ValueSpec:
			for _, n := range c.Names {
				if strings.EqualFold(n.Name, "detail") {
					return false
				}
			}
		}
		return true
	})
}

// method is ".M" of "x.M": an exempt method matches on any receiver.
func method(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i:]
	}
	return ""
}

func callName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
		return "." + e.Sel.Name
	}
	return ""
}

// lhsName is the name assigned to: x or a.x.
func lhsName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

func keyName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.BasicLit:
		s, _ := strconv.Unquote(e.Value)
		return s
	}
	return ""
}

// TestNoModelTextOutsideOutcome: every sentence a model reads is written
// here, under the golden tests; the packages that build model-facing
// results only assemble what this package says.
func TestNoModelTextOutsideOutcome(t *testing.T) {
	for _, f := range modelTextFindings(t, modelTextDirs) {
		t.Errorf("model-facing wording outside package outcome (move it here, under a golden): %s", f)
	}
}

// TestModelTextRuleCatches: the rule finds wording where it is (this
// package's own narrators, and a planted sentence), so a pass above
// means something.
func TestModelTextRuleCatches(t *testing.T) {
	if got := modelTextFindings(t, []string{"sentences.go"}); len(got) < 10 {
		t.Fatalf("the rule finds %d sentences in sentences.go, want many", len(got))
	}
	dir := t.TempDir()
	planted := "package p\n\nfunc f(path string) string {\n\treturn path + \" is a binary file\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := modelTextFindings(t, []string{filepath.Join(dir, "*.go")}); len(got) != 1 {
		t.Fatalf("the planted sentence was found %d times: %v", len(got), got)
	}
}
