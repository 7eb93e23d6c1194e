package tools

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

var png1x1 = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func TestFileToolsHappyPath(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	f.write("src/a.go", "package a\n\nfunc A() {}\n")
	f.write("src/b/c.go", "package b\n")
	f.write("img.png", string(png1x1))

	r := f.call("read_file", obj_{"path": "src/a.go"})
	wantKind(t, r, outcome.OK)
	if !strings.Contains(r.Text, "     1\tpackage a") || r.IsError {
		t.Fatalf("read_file text:\n%s", r.Text)
	}
	if d := r.Data.(*ReadData); d.Path != "/workspace/src/a.go" || d.Lines != 3 {
		t.Fatalf("read data = %+v", d)
	}
	r = f.call("read_file", obj_{"path": "/workspace/src/a.go", "offset": 3, "limit": 1})
	if wantKind(t, r, outcome.OK); !strings.Contains(r.Text, "     3\tfunc A() {}") || strings.Contains(r.Text, "package") {
		t.Fatalf("ranged read:\n%s", r.Text)
	}

	r = f.call("write_file", obj_{"path": "out/new.txt", "content": "hello\n"})
	wantKind(t, r, outcome.OK)
	if got, _ := f.read("out/new.txt"); got != "hello\n" {
		t.Fatalf("written %q", got)
	}
	if d := r.Data.(*WriteData); !d.Created || d.Bytes != 6 || d.Path != "/workspace/out/new.txt" {
		t.Fatalf("write data %+v", d)
	}

	r = f.call("edit_file", obj_{"path": "src/a.go", "old_string": "func A() {}", "new_string": "func A() int { return 1 }"})
	wantKind(t, r, outcome.OK)
	if got, _ := f.read("src/a.go"); !strings.Contains(got, "return 1") {
		t.Fatalf("edited %q", got)
	}

	r = f.call("list_files", obj_{"depth": 2})
	wantKind(t, r, outcome.OK)
	for _, want := range []string{"/workspace/src/\n", "/workspace/src/a.go\n", "/workspace/img.png\n", "/workspace/src/b/\n"} {
		if !strings.Contains(r.Text, want) {
			t.Fatalf("list_files lacks %q:\n%s", want, r.Text)
		}
	}

	r = f.call("glob_files", obj_{"pattern": "**/*.go"})
	wantKind(t, r, outcome.OK)
	if r.Text != "/workspace/src/a.go\n/workspace/src/b/c.go" {
		t.Fatalf("glob_files:\n%s", r.Text)
	}

	r = f.call("grep_files", obj_{"pattern": "^package", "glob": "*.go"})
	wantKind(t, r, outcome.OK)
	if !strings.Contains(r.Text, "/workspace/src/a.go:1:package a") || !strings.Contains(r.Text, "2 matching lines in 2 files.") {
		t.Fatalf("grep_files:\n%s", r.Text)
	}
	r = f.call("grep_files", obj_{"pattern": "FUNC", "case_insensitive": true, "context_lines": 1, "path": "src/a.go"})
	if wantKind(t, r, outcome.OK); !strings.Contains(r.Text, "/workspace/src/a.go-2-") || !strings.Contains(r.Text, ":3:func") {
		t.Fatalf("grep with context:\n%s", r.Text)
	}

	r = f.call("read_media", obj_{"path": "img.png"})
	wantKind(t, r, outcome.OK)
	if r.Media == nil || r.Media.MIME != "image/png" || !bytes.Equal(r.Media.Data, png1x1) {
		t.Fatalf("read_media = %+v", r.Media)
	}
}

// TestOutcomeKinds reaches every file-side outcome kind through the tools.
func TestOutcomeKinds(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite, entries: []policy.Entry{
		{Path: "secret", Access: policy.Deny}, {Path: "ro", Access: policy.Read},
	}})
	f.write("a.txt", "one\ntwo\n")
	f.write("big.txt", strings.Repeat("x", 5000))
	f.write("secret/key", "k")
	f.write("ro/file", "r")
	f.write("dir/x.txt", "x")
	f.write("long/l.txt", "m"+strings.Repeat("é", 3000)+"\n")
	for i := range 3 {
		f.write("many/"+string(rune('a'+i))+".txt", "m")
	}
	if err := syscall.Mkfifo(filepath.Join(f.root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(f.root, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, tool string
		args       any
		kind       outcome.Kind
	}{
		{"absolute", "read_file", obj_{"path": "/etc/passwd"}, outcome.PathRejected},
		{"climb", "read_file", obj_{"path": "../x"}, outcome.PathRejected},
		{"climb-list", "list_files", obj_{"path": "a/../../b"}, outcome.PathRejected},
		{"missing", "read_file", obj_{"path": "nope.txt"}, outcome.NotFound},
		{"denied-read", "read_file", obj_{"path": "secret/key"}, outcome.DeniedByPolicy},
		{"denied-write", "write_file", obj_{"path": "ro/file", "content": "x"}, outcome.DeniedByPolicy},
		{"over-budget", "read_file", obj_{"path": "big.txt", "max_bytes": 100}, outcome.OverBudget},
		{"scope-limited", "grep_files", obj_{"pattern": "m", "path": "long"}, outcome.ScopeLimited}, // a line cut
		{"paged", "grep_files", obj_{"pattern": "m", "path": "many", "max_matches": 1}, outcome.OK}, // nothing lost: a next page
		{"no-matches", "grep_files", obj_{"pattern": "zzz"}, outcome.NoMatches},
		{"no-matches-edit", "edit_file", obj_{"path": "a.txt", "old_string": "zzz", "new_string": "y"}, outcome.NoMatches},
		{"invalid-pattern", "grep_files", obj_{"pattern": "("}, outcome.InvalidPattern},
		{"invalid-glob", "glob_files", obj_{"pattern": "[a"}, outcome.InvalidPattern},
		{"unknown-media", "read_media", obj_{"path": "a.txt"}, outcome.UnknownMedia},
		{"is-a-directory", "read_file", obj_{"path": "dir"}, outcome.IsADirectory},
		{"not-a-directory", "list_files", obj_{"path": "a.txt"}, outcome.NotADirectory},
		{"fifo", "read_file", obj_{"path": "fifo"}, outcome.NotARegularFile},
		{"invalid-arguments", "read_file", obj_{"path": "a.txt", "bogus": 1}, outcome.InvalidArguments},
		{"ambiguous-edit", "edit_file", obj_{"path": "a.txt", "old_string": "o", "new_string": "0"}, outcome.InvalidArguments},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := f.call(c.tool, c.args)
			wantKind(t, r, c.kind)
			if r.Text == "" || strings.Contains(r.Text, f.root) {
				t.Fatalf("text empty or leaks the host root:\n%s", r.Text)
			}
			if r.IsError != (c.kind != outcome.OK && c.kind != outcome.ScopeLimited && c.kind != outcome.NoMatches) {
				t.Fatalf("IsError = %v for %s", r.IsError, c.kind)
			}
		})
	}
	if got, _ := f.read("ro/file"); got != "r" {
		t.Fatalf("read-only file changed: %q", got)
	}
}

// TestOutsideWriteRootNoGate: read-only mode, no gate — the policy's own
// refusal reaches the model and nothing is written.
func TestOutsideWriteRootNoGate(t *testing.T) {
	f := newFixture(t, setup{mode: policy.ReadOnly})
	r := f.call("write_file", obj_{"path": "x.txt", "content": "x"})
	wantKind(t, r, outcome.OutsideWriteRoot)
	if r.Audit.Gate != gateNone {
		t.Fatalf("audit gate = %q", r.Audit.Gate)
	}
	if _, ok := f.read("x.txt"); ok {
		t.Fatal("refused write happened")
	}
}

func TestReadFileBinaryAndMore(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	f.write("bin", "a\x00b")
	f.write("lines", "1\n2\n3\n4\n")
	r := f.call("read_file", obj_{"path": "bin"})
	if wantKind(t, r, outcome.OK); !strings.Contains(r.Text, "binary file") || !r.Data.(*ReadData).Binary {
		t.Fatalf("binary:\n%s", r.Text)
	}
	r = f.call("read_file", obj_{"path": "lines", "limit": 2})
	if wantKind(t, r, outcome.OK); !strings.Contains(r.Text, "offset 3") {
		t.Fatalf("more:\n%s", r.Text)
	}
}

// TestFileContentsHostRootRewritten: a file that spells the host root (a
// build log, a cache) is shown with the mount path there, in the text and
// in the structured result.
func TestFileContentsHostRootRewritten(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	f.write("log.txt", "built "+f.root+"/out/bin\n")
	for _, c := range []struct {
		tool string
		args any
	}{{"read_file", obj_{"path": "log.txt"}}, {"grep_files", obj_{"pattern": "built"}}} {
		r := f.call(c.tool, c.args)
		wantKind(t, r, outcome.OK)
		data, _ := json.Marshal(r.Data)
		if strings.Contains(r.Text, f.root) || strings.Contains(string(data), f.root) || !strings.Contains(r.Text, "built /workspace/out/bin") {
			t.Fatalf("%s leaks the host root:\n%s\n%s", c.tool, r.Text, data)
		}
	}
}
