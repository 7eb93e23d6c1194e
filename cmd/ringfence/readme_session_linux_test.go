//go:build linux

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
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/tools"
)

func readmeBlock(t *testing.T, test string) string {
	t.Helper()
	blocks, err := fencedBlocks("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		if b.marker("checked-by") == test {
			return b.body
		}
	}
	t.Fatalf("no README block checked by %s", test)
	return ""
}

// The README's session example compiles and runs as shown (given sb and
// ctx): the REPL answers on its terminal and ends at Ctrl-D.
func TestREADMESessionExample(t *testing.T) {
	needBackend(t, "linux")
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Need(t, "python3", err)
	}
	snippet := readmeBlock(t, "TestREADMESessionExample")
	dir, err := os.MkdirTemp("../..", ".readme-session-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	prog := `package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/policy"
)

func main() {
	if ringfence.MaybeInternal() {
		return
	}
	ctx := context.Background()
	sb, err := ringfence.New(ringfence.Config{Root: os.Args[1], Backend: "linux"})
	if err != nil {
		panic(err)
	}
	defer sb.Close()
` + indent(snippet) + `	_, _, _ = srv, cli, err
	fmt.Println(r.Kind, strings.Contains(r.Stdout, "42"))
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(t.TempDir(), "example")
	c := exec.Command("go", "build", "-o", exe, "./"+filepath.Base(dir))
	c.Dir, c.Env = "../..", goEnv("CGO_ENABLED=0")
	if out, err := c.CombinedOutput(); err != nil {
		t.Fatalf("the README's session example does not compile: %v\n%s\n%s", err, out, prog)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, exe, t.TempDir()).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "success true" {
		t.Errorf("the README's session example: %v\n%s", err, out)
	}
}

// The README's sequence of process-tool calls does what the text says,
// call by call, in one tools.Set with the process tools.
func TestREADMEProcessToolsExample(t *testing.T) {
	needBackend(t, "linux")
	sb, err := ringfence.New(ringfence.Config{Root: t.TempDir(), Backend: "linux"})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	set := tools.New(sb, tools.Options{Processes: true})
	defer set.Close()
	want := []string{
		`"in":"session"`,
		"kept",
		"process_id 1 is still running",
		"hello ada",
		"24 80",
		"40 120",
		"process_id 3 is still running",
		"3\trunning\tsleep 600",
		"process_id 3 ended",
	}
	lines := strings.Split(strings.TrimSpace(readmeBlock(t, "TestREADMEProcessToolsExample")), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d calls in the README, %d expectations here", len(lines), len(want))
	}
	for i, line := range lines {
		var c struct {
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		r := set.Call(context.Background(), c.Tool, c.Arguments)
		data, _ := json.Marshal(r.Data)
		// A process ended by kill_process's SIGTERM is a command failure.
		if (r.IsError && c.Tool != "kill_process") || !strings.Contains(r.Text+string(data), want[i]) {
			t.Fatalf("call %d %s: want %q in:\n%s\n%s", i+1, line, want[i], r.Text, data)
		}
	}
}
