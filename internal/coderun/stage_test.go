package coderun

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

func ins(names ...string) []Input {
	out := make([]Input, len(names))
	for i, n := range names {
		out[i] = Input{Name: n, Content: []byte(n)}
	}
	return out
}

func TestCheckNames(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  []string
		kind  outcome.Kind
	}{
		{names: []string{"a.csv", "dir/b.json", "./c//d"}, want: []string{"a.csv", "dir/b.json", "c/d"}},
		{names: []string{"x/../y"}, want: []string{"y"}},
		{names: []string{"../etc/passwd"}, kind: outcome.PathRejected},
		{names: []string{"/etc/passwd"}, kind: outcome.PathRejected},
		{names: []string{"~/x"}, kind: outcome.PathRejected},
		{names: []string{"a\\b"}, kind: outcome.PathRejected},
		{names: []string{"a\x00b"}, kind: outcome.PathRejected},
		{names: []string{""}, kind: outcome.PathRejected},
		{names: []string{"."}, kind: outcome.PathRejected},
		{names: []string{"manifest.json"}, kind: outcome.InvalidArguments},
		{names: []string{"\xd3"}, kind: outcome.InvalidArguments},
		{names: []string{"sub/manifest.json"}, want: []string{"sub/manifest.json"}},
		{names: []string{"a", "./a"}, kind: outcome.InvalidArguments},
		{names: []string{"a", "a/b"}, kind: outcome.InvalidArguments},
		{names: []string{"a/b/c", "a"}, kind: outcome.InvalidArguments},
		{names: []string{strings.Repeat("n", 256)}, kind: outcome.InvalidArguments},
		{names: []string{strings.Repeat("n/", 600)}, kind: outcome.InvalidArguments},
	} {
		got, err := CheckNames(ins(c.names...), 8)
		o, _ := outcome.Of(err)
		if o.Kind != c.kind || (c.kind == "" && strings.Join(got, "|") != strings.Join(c.want, "|")) {
			t.Errorf("%q: got %q, %v; want %q, %q", c.names, got, err, c.want, c.kind)
		}
		if err != nil && strings.Contains(err.Error(), "passwd") {
			t.Errorf("%q: the error shows the name's content: %v", c.names, err)
		}
	}
	_, err := CheckNames(ins("a", "b", "c"), 2)
	if o, _ := outcome.Of(err); o.Kind != outcome.OverBudget || o.Limit != 2 || o.Observed != 3 {
		t.Errorf("count bound: %v %+v", err, o)
	}
}

func TestGather(t *testing.T) {
	s := newSandbox(t, config{mode: policy.WorkspaceWrite, entries: []policy.Entry{{Path: "secret", Access: policy.Deny}}})
	s.write("data.txt", "0123456789")
	s.write("secret/key", "k")
	ws := s.sb.Workspace()
	for _, c := range []struct {
		name   string
		inputs []Input
		max    int64
		kind   outcome.Kind
		total  int
	}{
		{"both", []Input{{Name: "a", Content: []byte("x"), FromWorkspace: "data.txt"}}, 100, outcome.InvalidArguments, 0},
		{"neither", []Input{{Name: "a"}}, 100, outcome.InvalidArguments, 0},
		{"empty content is content", []Input{{Name: "a", Content: []byte{}}}, 100, "", 0},
		{"workspace", []Input{{Name: "a", FromWorkspace: "/workspace/data.txt"}, {Name: "b", Content: []byte("xy")}}, 100, "", 12},
		{"content over budget", []Input{{Name: "a", Content: make([]byte, 101)}}, 100, outcome.OverBudget, 0},
		{"file over what is left", []Input{{Name: "a", Content: make([]byte, 95)}, {Name: "b", FromWorkspace: "data.txt"}}, 100, outcome.OverBudget, 0},
		{"nothing left", []Input{{Name: "a", Content: make([]byte, 100)}, {Name: "b", FromWorkspace: "data.txt"}}, 100, outcome.OverBudget, 0},
		{"denied", []Input{{Name: "a", FromWorkspace: "secret/key"}}, 100, outcome.DeniedByPolicy, 0},
		{"missing", []Input{{Name: "a", FromWorkspace: "nope"}}, 100, outcome.NotFound, 0},
		{"escape", []Input{{Name: "a", FromWorkspace: "../x"}}, 100, outcome.PathRejected, 0},
	} {
		names, err := CheckNames(c.inputs, 8)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		files, err := gather(ws, c.inputs, names, c.max)
		o, _ := outcome.Of(err)
		if o.Kind != c.kind {
			t.Errorf("%s: %v (%+v), want %q", c.name, err, o, c.kind)
			continue
		}
		total := 0
		for _, f := range files {
			total += len(f.data)
		}
		if total != c.total {
			t.Errorf("%s: %d bytes gathered, want %d", c.name, total, c.total)
		}
		if o.Kind == outcome.OverBudget && (o.Bound != "input bytes" || o.Limit != c.max) {
			t.Errorf("%s: %+v", c.name, o)
		}
	}
}

func TestManifest(t *testing.T) {
	m, b := buildManifest([]staged{{"a.txt", []byte("hello")}, {"d/e", nil}})
	var back Manifest
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want := []ManifestEntry{
		{"a.txt", 5, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"},
		{"d/e", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	}
	for i := range want {
		if back.Inputs[i] != want[i] || m.Inputs[i] != want[i] {
			t.Errorf("entry %d: %+v / %+v", i, back.Inputs[i], m.Inputs[i])
		}
	}
}
