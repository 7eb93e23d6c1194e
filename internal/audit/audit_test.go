package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/tools"
)

const secret = "TOP-SECRET-FILE-CONTENTS"

func TestArgsNeverHoldContents(t *testing.T) {
	for _, raw := range []string{
		`{"path":"a.txt","content":"` + secret + `"}`,
		`{"path":"a.txt","old_string":"` + secret + `","new_string":"x"}`,
		`{"command":"cat","stdin":"` + secret + `"}`,
		`{"path":"a.txt","smuggled":"` + secret + `"}`,           // a name this package does not know
		`{"path":"a.txt","nested":{"content":"` + secret + `"}}`, // nesting
		`{"argv":["echo"],"extra":["` + secret + `"]}`,
		`"` + secret + `"`, // not an object
		`{"path":`,         // not JSON
	} {
		b, err := json.Marshal(Args(json.RawMessage(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("Args(%s) = %s: holds the contents", raw, b)
		}
	}
	// The check can fail: a kept name does keep its value.
	if b, _ := json.Marshal(Args(json.RawMessage(`{"path":"` + secret + `"}`))); !strings.Contains(string(b), secret) {
		t.Fatalf("path not kept: %s", b)
	}
}

func TestArgsDigestAndBounds(t *testing.T) {
	got := Args(json.RawMessage(`{"path":"a.txt","content":"hello","maxBytes":10,"replace_all":true}`))
	d, ok := got["content"].(Digest)
	if !ok || d.Bytes != 5 || d.SHA256 != "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" {
		t.Fatalf("content = %#v", got["content"])
	}
	if got["path"] != "a.txt" || got["maxBytes"] != float64(10) || got["replace_all"] != true {
		t.Fatalf("args = %#v", got)
	}
	long := strings.Repeat("é", MaxText) // 2 KiB of two-byte runes
	cmd := Args(json.RawMessage(`{"command":"` + long + `"}`))["command"].(string)
	if len(cmd) > MaxText+32 || !strings.Contains(cmd, "more bytes]") || !strings.HasPrefix(cmd, "éé") {
		t.Fatalf("command not cut at 1 KiB: %d bytes", len(cmd))
	}
	argv := Args(json.RawMessage(`{"argv":["a","` + strings.Repeat("b", 2000) + `","c","d"]}`))["argv"].([]string)
	if n := len(strings.Join(argv, "")); n > MaxText+64 {
		t.Fatalf("argv kept %d bytes", n)
	}
}

func sample(i int, session, tool string, kind outcome.Kind) Record {
	return FromCall(Call{
		At: time.Date(2026, 11, 29, 12, 0, 0, int(time.Millisecond)*i, time.UTC), Session: session, Tool: tool,
		Args:   json.RawMessage(fmt.Sprintf(`{"command":"echo %d"}`, i)),
		Policy: "mode=workspace-write",
		Result: tools.Result{Outcome: outcome.Outcome{Kind: kind}, Audit: tools.AuditInfo{
			Capability: "observe", Classified: "allow", Gate: "approved-once", Backend: "linux", Duration: 1500 * time.Microsecond,
		}},
	})
}

func TestWriterConcurrentLinesAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, k := "s1", outcome.OK
			if i%2 == 1 {
				s, k = "s2", outcome.GateDeclined
			}
			if err := w.Write(sample(i, s, "run_command", k)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	f, _ := os.Open(path)
	defer f.Close()
	all, err := Read(f, Filter{})
	if err != nil || len(all) != 50 {
		t.Fatalf("Read = %d records, %v", len(all), err)
	}
	r := all[0]
	if r.Time == "" || r.DurationMS != 1.5 || r.Gate != "approved-once" || r.Backend != "linux" || r.Policy == "" {
		t.Fatalf("record = %+v", r)
	}
	f.Seek(0, 0)
	got, _ := Read(f, Filter{Session: SessionLabel("s2"), Outcome: "gate-declined"})
	if len(got) != 25 {
		t.Fatalf("filtered %d, want 25", len(got))
	}
	f.Seek(0, 0)
	if got, _ := Read(f, Filter{Tool: "read_file"}); len(got) != 0 {
		t.Fatalf("tool filter matched %d", len(got))
	}
}

func TestReadNamesBadLine(t *testing.T) {
	in := `{"time":"t","session":"s","tool":"x","outcome":"ok","durationMs":1}` + "\n\nnot json\n"
	_, err := Read(strings.NewReader(in), Filter{})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 3 {
		t.Fatalf("err = %v, want line 3", err)
	}
}

func TestTableIsPrintable(t *testing.T) {
	r := sample(1, "s1", "run_command", outcome.OK)
	r.Args = Args(json.RawMessage(`{"command":"echo \u001b[2J\u001b[1;1Hforged\nrow\u202e"}`))
	var buf bytes.Buffer
	if err := Table(&buf, []Record{r}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.ContainsAny(out, "\x1b\u202e") || strings.Count(out, "\n") != 2 {
		t.Fatalf("table not printable:\n%q", out)
	}
	for _, want := range []string{"TIME", "run_command", "observe/allow", "approved-once", "linux", "ok", "1.5"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The check can fail: the raw value does hold the escape.
	if !strings.Contains(r.Args["command"].(string), "\x1b") {
		t.Fatal("test input lost its escape")
	}
}

func FuzzArgs(f *testing.F) {
	f.Add([]byte(`{"path":"a","content":"x"}`))
	f.Add([]byte(`[1,2]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		m := Args(raw)
		if _, err := json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_ = Table(&buf, []Record{{Args: m}})
	})
}
