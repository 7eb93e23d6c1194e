package ringfence_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ringfence/ringfence"
)

// nameable are the root's types a library user can write. Every type from
// an internal package that a public method takes or returns, or a public
// struct field holds, must be one of them (an alias here), or the user
// gets values of a type they cannot name.
var nameable = []reflect.Type{
	reflect.TypeFor[ringfence.Sandbox](), reflect.TypeFor[ringfence.Isolation](), reflect.TypeFor[ringfence.Local](),
	reflect.TypeFor[ringfence.Config](), reflect.TypeFor[ringfence.HomeConfig](), reflect.TypeFor[ringfence.ExecOptions](),
	reflect.TypeFor[ringfence.Terminal](), reflect.TypeFor[ringfence.WindowSize](), reflect.TypeFor[ringfence.ExecResult](),
	reflect.TypeFor[ringfence.Kind](), reflect.TypeFor[ringfence.Truncated](), reflect.TypeFor[ringfence.Enforcement](),
	reflect.TypeFor[ringfence.NetworkDecision](), reflect.TypeFor[ringfence.SessionRun](),
	reflect.TypeFor[ringfence.Workspace](), reflect.TypeFor[ringfence.ReadOptions](), reflect.TypeFor[ringfence.ReadResult](),
	reflect.TypeFor[ringfence.WriteResult](), reflect.TypeFor[ringfence.StreamOptions](), reflect.TypeFor[ringfence.ListOptions](),
	reflect.TypeFor[ringfence.ListResult](), reflect.TypeFor[ringfence.ListEntry](), reflect.TypeFor[ringfence.GlobOptions](),
	reflect.TypeFor[ringfence.GlobResult](), reflect.TypeFor[ringfence.GrepOptions](), reflect.TypeFor[ringfence.GrepResult](),
	reflect.TypeFor[ringfence.GrepLine](), reflect.TypeFor[ringfence.GrepCursor](), reflect.TypeFor[ringfence.Media](),
	reflect.TypeFor[ringfence.FileInfo](), reflect.TypeFor[ringfence.DirListing](),
	reflect.TypeFor[ringfence.Session](), reflect.TypeFor[ringfence.SessionOptions](), reflect.TypeFor[ringfence.Process](),
	reflect.TypeFor[ringfence.FilesEnforcement](), reflect.TypeFor[ringfence.NetworkEnforcement](),
	reflect.TypeFor[ringfence.ResourcesEnforcement](),
	reflect.TypeFor[ringfence.Cmd](), reflect.TypeFor[ringfence.Ring](), reflect.TypeFor[ringfence.PolicyMismatchError](),
}

// TestPublicTypesAreNameable walks the public API from the root's types:
// their exported methods' parameters and results and their exported
// fields, into every root type reached.
func TestPublicTypesAreNameable(t *testing.T) {
	known := map[reflect.Type]bool{}
	for _, n := range nameable {
		known[n] = true
	}
	seen := map[reflect.Type]bool{}
	var visit func(from string, ty reflect.Type)
	visit = func(from string, ty reflect.Type) {
		for {
			switch ty.Kind() {
			case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
				ty = ty.Elem()
				continue
			case reflect.Map:
				visit(from, ty.Key())
				ty = ty.Elem()
				continue
			}
			break
		}
		if ty.Kind() == reflect.Func && ty.Name() == "" {
			for i := range ty.NumIn() {
				visit(from, ty.In(i))
			}
			for i := range ty.NumOut() {
				visit(from, ty.Out(i))
			}
			return
		}
		if ty.PkgPath() == "" || seen[ty] {
			return
		}
		seen[ty] = true
		if !strings.Contains(ty.PkgPath(), "/internal/") {
			return // a public package's type: nameable where it is
		}
		if !known[ty] {
			t.Errorf("%s: %s.%s is internal and has no name in the root: add an alias (and list it here)", from, ty.PkgPath(), ty.Name())
			return
		}
		for _, recv := range []reflect.Type{ty, reflect.PointerTo(ty)} {
			for i := range recv.NumMethod() {
				m := recv.Method(i)
				visit(ty.Name()+"."+m.Name, m.Type)
			}
		}
		if ty.Kind() == reflect.Struct {
			for i := range ty.NumField() {
				if f := ty.Field(i); f.IsExported() && !f.Anonymous {
					visit(ty.Name()+"."+f.Name, f.Type)
				}
			}
		}
	}
	for _, n := range nameable {
		visit("root", n)
	}
	if !seen[reflect.TypeFor[ringfence.Workspace]()] {
		t.Fatal("the walk never reached Workspace")
	}
}

// TestWorkspaceByItsPublicName: a library user writes the file layer's
// types by their root names and drives it, refusals included.
func TestWorkspaceByItsPublicName(t *testing.T) {
	sb, err := ringfence.New(ringfence.Config{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	var ws *ringfence.Workspace = sb.Workspace()
	var wr ringfence.WriteResult
	if wr, err = ws.WriteFile("/workspace/a.txt", []byte("hi")); err != nil {
		t.Fatal(err)
	}
	var rr ringfence.ReadResult
	if rr, err = ws.ReadFile("a.txt", ringfence.ReadOptions{MaxBytes: 10}); err != nil || !strings.Contains(rr.Text, "hi") {
		t.Fatalf("read %+v %v (wrote %+v)", rr, err, wr)
	}
	if _, err := ws.ReadFile("../etc/passwd", ringfence.ReadOptions{MaxBytes: 10}); err == nil {
		t.Fatal("a path climbing out of the root was read")
	}
}
