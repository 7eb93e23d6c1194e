package coderun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Each snippet reads the manifest and one staged input, prints the
// input's SHA-256 as it computed it and as the manifest says, and writes
// an artifact.
var snippets = map[string]string{
	"python": `import hashlib, json, os
m = json.load(open("inputs/manifest.json"))
data = open("inputs/data/in.csv", "rb").read()
print("computed", hashlib.sha256(data).hexdigest())
print("manifest", [e["sha256"] for e in m["inputs"] if e["name"] == "data/in.csv"][0])
open(os.path.join(os.environ["RINGFENCE_OUTPUT_DIR"], "result.txt"), "w").write("rows=%d\n" % data.count(b"\n"))
`,
	"javascript": `const fs = require("fs"), crypto = require("crypto"), path = require("path");
const m = JSON.parse(fs.readFileSync("inputs/manifest.json", "utf8"));
const data = fs.readFileSync("inputs/data/in.csv");
console.log("computed", crypto.createHash("sha256").update(data).digest("hex"));
console.log("manifest", m.inputs.find(e => e.name === "data/in.csv").sha256);
fs.writeFileSync(path.join(process.env.RINGFENCE_OUTPUT_DIR, "result.txt"), "rows=" + (data.toString().split("\n").length - 1) + "\n");
`,
	"bash": `set -e
echo "computed $(sha256sum < inputs/data/in.csv | cut -d' ' -f1)"
echo "manifest $(grep -A2 '"data/in.csv"' inputs/manifest.json | sed -n 's/.*"sha256": "\(.*\)".*/\1/p')"
echo "rows=$(wc -l < inputs/data/in.csv)" > "$RINGFENCE_OUTPUT_DIR/result.txt"
`,
	"sh": `set -e
echo "computed $(sha256sum < inputs/data/in.csv | cut -d' ' -f1)"
echo "manifest $(grep -A2 '"data/in.csv"' inputs/manifest.json | sed -n 's/.*"sha256": "\(.*\)".*/\1/p')"
echo "rows=$(wc -l < inputs/data/in.csv)" > "$RINGFENCE_OUTPUT_DIR/result.txt"
`,
}

func TestLanguagesStageInputsAndReturnArtifacts(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.WorkspaceWrite})
	const csv = "a,b\n1,2\n3,4\n"
	s.write("src/in.csv", csv)
	for _, lang := range LanguageNames {
		t.Run(lang, func(t *testing.T) {
			needInterp(t, s.sb, lang)
			res := s.run(Request{Language: lang, Code: snippets[lang], Inputs: []Input{
				{Name: "data/in.csv", FromWorkspace: "src/in.csv"},
				{Name: "note.txt", Content: str("hello")},
			}})
			wantKind(t, res, "success")
			for _, line := range []string{"computed " + sha(csv), "manifest " + sha(csv)} {
				if !strings.Contains(res.Exec.Stdout, line) {
					t.Errorf("stdout %q lacks %q", res.Exec.Stdout, line)
				}
			}
			if !res.ArtifactsCollected || len(res.Artifacts) != 1 {
				t.Fatalf("artifacts %v collected %v", names(res), res.ArtifactsCollected)
			}
			a := artifact(t, res, "result.txt")
			if strings.TrimSpace(string(a.Content)) != "rows=3" || a.SHA256 != sha(string(a.Content)) || !strings.HasPrefix(a.MIME, "text/plain") {
				t.Errorf("artifact %+v (content %q)", a, a.Content)
			}
			if len(res.Inputs) != 2 || res.Inputs[1].SHA256 != sha("hello") || res.Inputs[1].Size != 5 {
				t.Errorf("manifest %+v", res.Inputs)
			}
			scratchEmpty(t, s)
		})
	}
}

// scratchEmpty: every call directory is removed once Run returns.
func scratchEmpty(t *testing.T, s *testSandbox) {
	t.Helper()
	ents, err := os.ReadDir(s.sb.ScratchDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("the scratch dir still holds %d entries (first %q)", len(ents), ents[0].Name())
	}
}

func TestLargeArtifactSavedIntoWorkspace(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.WorkspaceWrite})
	needInterp(t, s.sb, "bash")
	res := s.run(Request{Language: "bash", MaxInlineBytes: 1024,
		Code: `head -c 4096 /dev/zero | tr '\0' x > "$RINGFENCE_OUTPUT_DIR/big.txt"; echo small > "$RINGFENCE_OUTPUT_DIR/small.txt"`})
	wantKind(t, res, "success")
	big := artifact(t, res, "big.txt")
	if big.Content != nil || big.Refused != "" || big.Size != 4096 || big.SHA256 != sha(strings.Repeat("x", 4096)) {
		t.Fatalf("big artifact %+v", big)
	}
	rel, ok := strings.CutPrefix(big.SavedTo, "/workspace/outputs/run-")
	if !ok {
		t.Fatalf("saved to %q", big.SavedTo)
	}
	data, err := os.ReadFile(filepath.Join(s.root, "outputs", "run-"+rel))
	if err != nil || string(data) != strings.Repeat("x", 4096) {
		t.Fatalf("saved file: %v (%d bytes)", err, len(data))
	}
	if small := artifact(t, res, "small.txt"); string(small.Content) != "small\n" {
		t.Errorf("small artifact %+v", small)
	}
	scratchEmpty(t, s)
}

func TestLargeArtifactRefusedWhenWorkspaceReadOnly(t *testing.T) {
	t.Parallel()
	// The workspace is read-only (a deployment entry) while the private
	// temp dir stays writable, so the code can write outputs/ but a large
	// artifact has nowhere to go.
	s := newSandbox(t, config{mode: policy.WorkspaceWrite, entries: []policy.Entry{{Path: ".", Access: policy.Read}}})
	needInterp(t, s.sb, "bash")
	res := s.run(Request{Language: "bash", MaxInlineBytes: 1024,
		Code: `head -c 4096 /dev/zero > "$RINGFENCE_OUTPUT_DIR/big.bin"`})
	wantKind(t, res, "success")
	big := artifact(t, res, "big.bin")
	if big.Refused != RefusedOverBudget || big.SavedTo != "" || big.Content != nil {
		t.Fatalf("big artifact %+v", big)
	}
	if _, err := os.Stat(filepath.Join(s.root, "outputs")); !os.IsNotExist(err) {
		t.Errorf("something was saved into the read-only workspace: %v", err)
	}
}

func TestMissingInterpreter(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.WorkspaceWrite, env: map[string]string{"PATH": t.TempDir()}})
	for _, lang := range LanguageNames {
		_, err := Run(context.Background(), s.sb, Request{Language: lang, Code: "echo hi"})
		o, ok := outcome.Of(err)
		if !ok || o.Kind != outcome.MissingProgram || o.Program != Languages[lang].Program {
			t.Errorf("%s: %v", lang, err)
		}
	}
	scratchEmpty(t, s)
	_, err := Run(context.Background(), s.sb, Request{Language: "cobol", Code: "x"})
	if o, _ := outcome.Of(err); o.Kind != outcome.InvalidArguments {
		t.Errorf("unknown language: %v", err)
	}
}

func TestReadOnlySessionRefusedBeforeRunning(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.ReadOnly})
	needInterp(t, s.sb, "sh")
	_, err := Run(context.Background(), s.sb, Request{Language: "sh", Code: "true"})
	if o, _ := outcome.Of(err); o.Kind != outcome.Unavailable {
		t.Fatalf("read-only: %v", err)
	}
	scratchEmpty(t, s)
}

func TestTimeoutStopsTheTree(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.WorkspaceWrite})
	needInterp(t, s.sb, "bash")
	marker := filepath.Join(s.root, "survivor")
	// A detached grandchild would write the marker two seconds later if
	// the tree were not stopped.
	code := `(setsid sh -c 'sleep 2; echo alive > ` + marker + `' &) ; sleep 30`
	start := time.Now()
	res := s.run(Request{Language: "bash", Code: code, Timeout: 500 * time.Millisecond})
	wantKind(t, res, "timed-out")
	if !res.ArtifactsCollected || res.Artifacts == nil {
		t.Errorf("a timed-out run's outputs are still collected: %+v", res)
	}
	// Control: the same script under a plain timeout that kills only the
	// process it started leaves the detached grandchild running; the
	// test can fail.
	control := filepath.Join(s.root, "control")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	controlStart := time.Now()
	exec.CommandContext(ctx, "bash", "-c", strings.ReplaceAll(code, marker, control)).Run()
	// The control's grandchild writes two seconds after it started, however
	// late that was on a loaded machine: wait for it (bounded), then judge
	// the confined run's marker no earlier than three seconds after it began.
	var err error
	for deadline := controlStart.Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err = os.Stat(control); err == nil {
			break
		}
	}
	if err != nil {
		t.Errorf("control: the uncontained grandchild did not survive: %v", err)
	}
	time.Sleep(time.Until(start.Add(3 * time.Second)))
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("a process of the timed-out run survived: %v", err)
	}
	scratchEmpty(t, s)
}

func TestEmptyOutputsAreAnEmptyList(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.WorkspaceWrite})
	needInterp(t, s.sb, "sh")
	for _, code := range []string{"true", `rmdir "$RINGFENCE_OUTPUT_DIR"`} {
		res := s.run(Request{Language: "sh", Code: code})
		wantKind(t, res, "success")
		if !res.ArtifactsCollected || res.Artifacts == nil || len(res.Artifacts) != 0 {
			t.Errorf("%q: artifacts %#v collected %v", code, res.Artifacts, res.ArtifactsCollected)
		}
		b, _ := json.Marshal(res)
		if !strings.Contains(string(b), `"artifacts":[]`) {
			t.Errorf("%q: JSON %s", code, b)
		}
	}
}

func TestInWorkspace(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.WorkspaceWrite})
	needInterp(t, s.sb, "sh")
	s.write("here.txt", "in the workspace")
	res := s.run(Request{Language: "sh", InWorkspace: true, Inputs: []Input{{Name: "x", Content: str("staged")}},
		Code: `cat here.txt; echo; cat "$RINGFENCE_INPUT_DIR/x"; echo; echo out > "$RINGFENCE_OUTPUT_DIR/o.txt"; echo made > made.txt`})
	wantKind(t, res, "success")
	if res.Exec.Stdout != "in the workspace\nstaged\n" {
		t.Errorf("stdout %q", res.Exec.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(s.root, "made.txt")); string(b) != "made\n" {
		t.Errorf("made.txt %q", b)
	}
	artifact(t, res, "o.txt")
	scratchEmpty(t, s)
}
