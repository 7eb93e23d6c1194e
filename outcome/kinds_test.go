package outcome

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// TestKindsMatchDeclarations reads outcome.go itself, so a constant added
// there without being added to Kinds() (and so to narration and goldens)
// fails here instead of reaching a model unnarrated.
func TestKindsMatchDeclarations(t *testing.T) {
	declared := declaredKinds(t, "outcome.go")
	if len(declared) == 0 {
		t.Fatal("found no Kind constants in outcome.go")
	}
	listed := Kinds()
	if !slices.Equal(declared, listed) {
		t.Errorf("Kinds() and outcome.go differ:\ndeclared %v\nlisted   %v", declared, listed)
	}
}

func declaredKinds(t *testing.T, file string) []Kind {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []Kind
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			out = append(out, kindValues(t, spec.(*ast.ValueSpec))...)
		}
	}
	return out
}

func kindValues(t *testing.T, vs *ast.ValueSpec) []Kind {
	if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Kind" {
		return nil
	}
	var out []Kind
	for _, v := range vs.Values {
		lit, ok := v.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			t.Fatalf("a Kind constant is not a string literal: %T", v)
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Kind(s))
	}
	return out
}

// TestKindsIsACopy: a caller cannot change the list narration relies on.
func TestKindsIsACopy(t *testing.T) {
	k := Kinds()
	k[0] = "changed"
	if Kinds()[0] != OK {
		t.Fatal("Kinds() exposes its backing array")
	}
}
