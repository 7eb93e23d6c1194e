package coderun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/policy"
)

// writeOutside tries to write the workspace (read-only here), a host
// directory outside every root, and system directories.
func writeOutside(targets ...string) string {
	var b strings.Builder
	for _, p := range targets {
		b.WriteString("if echo pwned > '" + p + "' 2>/dev/null; then echo 'WROTE " + p + "'; else echo 'REFUSED " + p + "'; fi\n")
	}
	return b.String()
}

func TestWriteOutsideItsDirectoriesIsDenied(t *testing.T) {
	t.Parallel()
	outside := t.TempDir() // a host directory no layer grants
	mine := []string{"", filepath.Join(outside, "probe")}
	// Confined, with the workspace read-only: nothing lands.
	s := newSandbox(t, config{mode: policy.WorkspaceWrite, entries: []policy.Entry{{Path: ".", Access: policy.Read}}})
	needInterp(t, s.sb, "bash")
	mine[0] = filepath.Join(s.root, "probe")
	targets := append(append([]string(nil), mine...), "/etc/ringfence-coderun-probe", "/usr/ringfence-coderun-probe")
	res := s.run(Request{Language: "bash", Code: writeOutside(targets...)})
	for _, p := range targets {
		if !strings.Contains(res.Exec.Stdout, "REFUSED "+p) {
			t.Errorf("confined: %q not refused; stdout %q", p, res.Exec.Stdout)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("confined: %s exists on the host", p)
			os.Remove(p)
		}
	}
	// The same attack unconfined (danger-full-access) writes both of the
	// test's own targets: the test can fail.
	d := newSandbox(t, config{mode: policy.DangerFullAccess})
	mine[0] = filepath.Join(d.root, "probe")
	res = d.run(Request{Language: "bash", Code: writeOutside(mine...)})
	for _, p := range mine {
		if !strings.Contains(res.Exec.Stdout, "WROTE "+p) {
			t.Errorf("unconfined control: %q not written; stdout %q", p, res.Exec.Stdout)
		}
	}
}

const tamper = `echo evil > inputs/a 2>/dev/null
rm -f inputs/a 2>/dev/null
echo evil > inputs/a 2>/dev/null
chmod 666 inputs/a 2>/dev/null
echo evil > inputs/manifest.json 2>/dev/null
mv inputs inputs.old 2>/dev/null && mkdir inputs && echo evil > inputs/a
echo 'echo evil' > main.sh 2>/dev/null
cat inputs/a; echo; head -c 4 inputs/manifest.json; echo; head -c 7 main.sh`

func TestInputsAndCodeCannotBeModified(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.WorkspaceWrite})
	needInterp(t, s.sb, "bash")
	res := s.run(Request{Language: "bash", Code: tamper, Inputs: []Input{{Name: "a", Content: str("original")}}})
	if want := "original\n{\n  \"\necho ev"; res.Exec.Stdout != want && !strings.HasPrefix(res.Exec.Stdout, "original\n{\n") {
		t.Errorf("confined: stdout %q", res.Exec.Stdout)
	}
	if strings.Contains(res.Exec.Stdout, "evil") {
		t.Errorf("confined: the inputs or the code were modified: %q", res.Exec.Stdout)
	}
	// Unconfined, the same snippet replaces the input: the test can fail.
	d := newSandbox(t, config{mode: policy.DangerFullAccess})
	res = d.run(Request{Language: "bash", Code: tamper, Inputs: []Input{{Name: "a", Content: str("original")}}})
	if !strings.Contains(res.Exec.Stdout, "evil") {
		t.Errorf("unconfined control: stdout %q", res.Exec.Stdout)
	}
}

// secretSandbox has a workspace secret the policy denies to commands.
func secretSandbox(t *testing.T) (*testSandbox, string, string) {
	s := newSandbox(t, config{mode: policy.WorkspaceWrite, entries: []policy.Entry{{Path: "secret", Access: policy.Deny}}})
	const content = "RF-HOST-SECRET-5c1d9e"
	s.write("secret/key", content)
	return s, filepath.Join(s.root, "secret", "key"), content
}

func TestLinksInOutputsAreRefusedNeverFollowed(t *testing.T) {
	t.Parallel()
	s, key, content := secretSandbox(t)
	needInterp(t, s.sb, "bash")
	code := `cd "$RINGFENCE_OUTPUT_DIR"
cat '` + key + `' 2>/dev/null && echo READ-DIRECTLY
ln -s '` + key + `' abs
ln -s ../../../../../../../../..'` + key + `' rel
ln -s /etc/passwd passwd
ln -s '` + filepath.Dir(key) + `' dirlink
ln '` + key + `' hard 2>/dev/null || true
mkdir sub && ln -s ../abs sub/chain
echo fine > plain.txt`
	res := s.run(Request{Language: "bash", Code: code})
	wantKind(t, res, "success")
	if strings.Contains(res.Exec.Stdout, "READ-DIRECTLY") {
		t.Fatal("the policy let the command read the secret; the test's premise is broken")
	}
	for _, n := range []string{"abs", "rel", "passwd", "dirlink", "sub/chain"} {
		if a := artifact(t, res, n); a.Refused != RefusedSymlink || a.Content != nil || a.SHA256 != "" {
			t.Errorf("%s: %+v", n, a)
		}
	}
	if a := artifact(t, res, "plain.txt"); string(a.Content) != "fine\n" {
		t.Errorf("plain.txt: %+v", a)
	}
	noSecret(t, res, content)
	passwd, _ := os.ReadFile("/etc/passwd")
	if b, _ := json.Marshal(res); len(passwd) > 0 && strings.Contains(string(b), strings.SplitN(string(passwd), "\n", 2)[0]) {
		t.Error("the content of /etc/passwd reached the result")
	}
}

func TestOutputsReplacedByALinkIsRefused(t *testing.T) {
	t.Parallel()
	s, key, content := secretSandbox(t)
	needInterp(t, s.sb, "bash")
	res := s.run(Request{Language: "bash", Code: `rmdir "$RINGFENCE_OUTPUT_DIR" && ln -s '` + filepath.Dir(key) + `' "$RINGFENCE_OUTPUT_DIR" && echo planted`})
	if !strings.Contains(res.Exec.Stdout, "planted") {
		t.Fatalf("the link was not planted: %q %q", res.Exec.Stdout, res.Exec.Stderr)
	}
	if len(res.Artifacts) != 1 || res.Artifacts[0].Refused != RefusedSymlink {
		t.Errorf("artifacts %+v", res.Artifacts)
	}
	noSecret(t, res, content)
}

func TestCallDirRenamedAsideIsStillTheOneCollected(t *testing.T) {
	t.Parallel()
	// The command moves its own directory aside and puts in its place a
	// directory holding a link to the secret. The linux backend pins the
	// call directory (read-only binds inside it: EBUSY); under the landlock
	// backend Landlock (EACCES) or the guard, which keeps the ancestors of
	// the read-only inputs from being renamed (EROFS), refuses it; were either to allow it, the runner
	// still reads the directory it opened before the run
	// (TestCollectorReadsTheDirectoryItOpened does that swap itself).
	swapped := 0
	for _, backend := range []string{"linux", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			s := newSandbox(t, config{mode: policy.WorkspaceWrite, backend: backend, entries: []policy.Entry{{Path: "secret", Access: policy.Deny}}})
			needInterp(t, s.sb, "bash")
			const content = "RF-HOST-SECRET-5c1d9e"
			s.write("secret/key", content)
			key := filepath.Join(s.root, "secret", "key")
			code := `d=$PWD; echo mine > outputs/mine.txt; cd /; mv "$d" "$d.moved" && mkdir -p "$d/outputs" && ln -s '` + key + `' "$d/outputs/key" && ln -s /etc/passwd "$d/outputs/p" && echo swapped`
			res := s.run(Request{Language: "bash", Code: code})
			if strings.Contains(res.Exec.Stdout, "swapped") {
				swapped++
			} else if !strings.Contains(res.Exec.Stderr, "busy") && !strings.Contains(res.Exec.Stderr, "Permission denied") &&
				!strings.Contains(res.Exec.Stderr, "Read-only file system") {
				t.Fatalf("neither swapped nor pinned: %q %q", res.Exec.Stdout, res.Exec.Stderr)
			}
			if len(res.Artifacts) != 1 || string(artifact(t, res, "mine.txt").Content) != "mine\n" {
				t.Errorf("artifacts %v", names(res))
			}
			noSecret(t, res, content)
		})
	}
	t.Logf("%d backend(s) let the directory be swapped", swapped)
}

func noSecret(t *testing.T, res *Result, content string) {
	t.Helper()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), content) {
		t.Errorf("the secret reached the result: %s", b)
	}
}

func TestFifoInOutputsIsRefused(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.WorkspaceWrite})
	needInterp(t, s.sb, "bash")
	res := s.run(Request{Language: "bash", Code: `mkfifo "$RINGFENCE_OUTPUT_DIR/pipe" && echo made`})
	if !strings.Contains(res.Exec.Stdout, "made") {
		t.Fatalf("no fifo: %q", res.Exec.Stderr)
	}
	if a := artifact(t, res, "pipe"); a.Refused != RefusedSpecial {
		t.Errorf("pipe: %+v", a)
	}
	scratchEmpty(t, s)
}

// cmdlineProbe prints whether the marker in its own source shows in any
// process's command line it can see.
const cmdlineProbe = `import glob
MARK = "RF" + "-CODE-MARKER-" + "7f3a"
src = open(__file__).read() if "__file__" in globals() else ""
seen = ""
for p in glob.glob("/proc/[0-9]*/cmdline"):
    try:
        seen += open(p, "rb").read().decode(errors="replace").replace("\0", " ") + "\n"
    except OSError:
        pass
print("SRC-HAS-MARK" if "RF-CODE-MARKER-7f3a" in src else "SRC-LACKS-MARK")
print("LEAK" if "-CODE-MARKER-" in seen else "CLEAN")
`

func TestCodeNeverInArgv(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, config{mode: policy.WorkspaceWrite})
	needInterp(t, s.sb, "python")
	res := s.run(Request{Language: "python", Code: cmdlineProbe})
	wantKind(t, res, "success")
	if res.Exec.Stdout != "SRC-HAS-MARK\nCLEAN\n" {
		t.Errorf("stdout %q", res.Exec.Stdout)
	}
	// The same probe passed as `python3 -c CODE` sees itself: the test
	// can fail.
	ctl, err := s.sb.Exec(context.Background(), []string{"python3", "-c", cmdlineProbe}, sandbox.ExecOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ctl.Stdout, "LEAK") {
		t.Errorf("control: stdout %q stderr %q", ctl.Stdout, ctl.Stderr)
	}
}
