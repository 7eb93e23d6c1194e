package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ringfence/ringfence/execpolicy"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// askEverything classifies every command ask-approval (or deny), so with a
// declining gate no fuzzed command ever runs.
func askEverything(t testing.TB) *execpolicy.Classifier {
	m := map[string]string{}
	for _, c := range []string{"observe", "use", "modify", "network", "service-control", "package-install", "credential", "unknown"} {
		m[c] = "ask-approval"
	}
	c, err := execpolicy.Config{Outcomes: m}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// FuzzCall: any tool name and any bytes as arguments never panic, always
// yield a kind, never show the host root, and malformed input (an unknown
// tool, bytes that are not JSON) is invalid-arguments.
func FuzzCall(f *testing.F) {
	for _, s := range []struct{ name, args string }{
		{"read_file", `{"path":"a.txt"}`},
		{"read_file", `{"path":"a.txt","offset":2,"limit":1,"max_bytes":10}`},
		{"write_file", `{"path":"d/b.txt","content":"x"}`},
		{"edit_file", `{"path":"a.txt","old_string":"one","new_string":"1"}`},
		{"list_files", `{"path":"/workspace","depth":3}`},
		{"glob_files", `{"pattern":"**/*.txt"}`},
		{"grep_files", `{"pattern":"o","context_lines":1,"max_matches":2}`},
		{"read_media", `{"path":"a.txt"}`},
		{"run_command", `{"command":"ls | wc -l","cwd":"d"}`},
		{"run_command", `{"argv":["echo","x"],"timeout_seconds":1}`},
		{"nope", `{}`},
		{"read_file", `{"path":"../../etc/passwd"}`},
		{"read_file", `[1,2]`},
	} {
		f.Add(s.name, []byte(s.args))
	}
	fx := newFuzzFixture(f)
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		r := fx.set.Call(context.Background(), name, args)
		if r.Outcome.Kind == "" || (r.Outcome.Kind != outcome.OK && r.Text == "") {
			t.Fatalf("no kind or no text: %+v", r)
		}
		// The host root never shows, unless the model wrote it itself in
		// a refused path (shown as given: outcome/given.go).
		if strings.Contains(r.Text, fx.root) && !bytes.Contains(args, []byte(fx.root)) {
			t.Fatalf("host root in text:\n%s", r.Text)
		}
		trimmed := bytes.TrimSpace(args)
		malformed := len(trimmed) > 0 && string(trimmed) != "null" && !json.Valid(trimmed)
		if _, known := fx.set.tools[name]; (!known || malformed) && r.Outcome.Kind != outcome.InvalidArguments {
			t.Fatalf("%q %q: kind %s, want invalid-arguments", name, args, r.Outcome.Kind)
		}
		if name == "run_command" && r.Audit.Backend != "" {
			t.Fatalf("a fuzzed command ran")
		}
	})
}

type fuzzFixture struct {
	root string
	set  *Set
}

func newFuzzFixture(f *testing.F) *fuzzFixture {
	fx := newFixtureTB(f, setup{mode: policy.WorkspaceWrite, opts: Options{
		Gate: &fakeGate{answer: Answer{Decision: Decline}}, Classifier: askEverything(f), MaxArgBytes: 64 << 10,
	}})
	fx.write("a.txt", "one\ntwo\n")
	fx.write("d/c.txt", "three\n")
	return &fuzzFixture{root: fx.root, set: fx.set}
}

// TestConcurrentCalls runs file calls in parallel on one Set (run it with
// -race): reads, writes to distinct files, edits, walks; and, on another
// Set, write approvals asked, minted, remembered and looked up at once.
func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite})
	f.write("a.txt", "alpha\nbeta\n")
	g := &fakeGate{answer: Answer{Decision: ApproveSession}}
	ro, _ := gateFixture(t, g, policy.ReadOnly)
	var wg sync.WaitGroup
	errs := make(chan string, 400)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range []struct {
				set  *Set
				tool string
				args any
			}{
				{f.set, "read_file", obj_{"path": "a.txt"}},
				{f.set, "write_file", obj_{"path": fmt.Sprintf("w/%d.txt", i), "content": "x"}},
				{f.set, "edit_file", obj_{"path": fmt.Sprintf("w/%d.txt", i), "old_string": "x", "new_string": "y"}},
				{f.set, "grep_files", obj_{"pattern": "beta"}},
				{f.set, "list_files", obj_{"depth": 2}},
				{f.set, "glob_files", obj_{"pattern": "**/*.txt"}},
				{ro.set, "write_file", obj_{"path": "shared.txt", "content": "s"}},
				{ro.set, "write_file", obj_{"path": fmt.Sprintf("own%d.txt", i), "content": "o"}},
			} {
				r := c.set.Call(context.Background(), c.tool, raw(t, c.args))
				if r.Outcome.Kind == outcome.IOFailure && strings.Contains(r.Text, "shared.txt") {
					continue // two writers replaced it at once: the workspace says so
				}
				if r.Outcome.Kind != outcome.OK {
					errs <- c.tool + ": " + string(r.Outcome.Kind) + ": " + r.Text
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for i := range 16 {
		if got, _ := f.read(fmt.Sprintf("w/%d.txt", i)); got != "y" {
			t.Errorf("w/%d.txt = %q", i, got)
		}
	}
	// 17 paths were approved for the session; racing callers may each have
	// asked about shared.txt before the first answer was kept.
	if got, _ := ro.read("own3.txt"); got != "o" {
		t.Errorf("approved write missing: %q", got)
	}
	if g.count() < 17 || g.count() > 32 {
		t.Fatalf("gate asked %d times", g.count())
	}
}

// TestConcurrentCommands runs commands in parallel on one Set, with
// session approvals minted and looked up at once.
func TestConcurrentCommands(t *testing.T) {
	g := &fakeGate{answer: Answer{Decision: ApproveSession}}
	f, _ := gateFixture(t, g, policy.DangerFullAccess)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := f.set.Call(context.Background(), "run_command", raw(t, obj_{"command": "echo ask " + fmt.Sprint(i)}))
			if r.Outcome.Kind != outcome.OK || !strings.Contains(r.Text, "ask "+fmt.Sprint(i)) {
				errs <- string(r.Outcome.Kind) + ": " + r.Text
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if g.count() < 1 || g.count() > 4 {
		t.Fatalf("gate asked %d times", g.count())
	}
}

// FuzzSnakeCase: the spelling is idempotent, leaves nothing that lowers
// further, and changes only case and underscores.
func FuzzSnakeCase(f *testing.F) {
	for _, s := range []string{"maxBytes", "SHA256", "HTTPServer", "old_string", "A_B", "ÉtéX", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := SnakeCase(s)
		if SnakeCase(got) != got {
			t.Fatalf("SnakeCase(%q) = %q is not stable: %q", s, got, SnakeCase(got))
		}
		for _, c := range got {
			if unicode.ToLower(c) != c {
				t.Fatalf("SnakeCase(%q) = %q keeps an upper-case letter", s, got)
			}
		}
		lower := strings.Map(unicode.ToLower, s)
		if strings.ReplaceAll(got, "_", "") != strings.ReplaceAll(lower, "_", "") && utf8.ValidString(s) {
			t.Fatalf("SnakeCase(%q) = %q changes more than case and underscores", s, got)
		}
	})
}
