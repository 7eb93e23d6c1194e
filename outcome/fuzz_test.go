package outcome

import (
	"path"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ringfence/ringfence/internal/status"
)

var execKinds = ExecKinds()

// FuzzClassifyExec: whatever a command prints and however it ends, the
// classifier never panics, a Started record is never a runner failure, and
// what it keeps of stderr stays bounded and one line.
func FuzzClassifyExec(f *testing.F) {
	f.Add([]byte("bwrap: Creating new namespace failed\n"), 1, true, "", true, true, false, "")
	f.Add([]byte("touch: cannot touch '/x': Read-only file system\n"), 1, true, "", true, true, false, "")
	f.Add([]byte(""), 0, false, "SIGSYS", true, true, false, "")
	f.Add([]byte("bwrap: execvp x: No such file or directory"), 1, true, "", false, false, false, "")
	f.Add([]byte("x"), 125, true, "", true, false, true, "setup")
	f.Add([]byte("curl: (6) Could not resolve host: example.com\n"), 6, true, "", true, true, false, "")
	f.Add([]byte("Error: connect ECONNREFUSED 127.0.0.1:9\n"), 1, true, "", true, true, false, "")
	f.Fuzz(func(t *testing.T, stderr []byte, exit int, hasExit bool, signal string,
		channel, startedRec, failedRec bool, reason string) {
		ev := Evidence{Stderr: stderr, Signal: signal, StatusChannel: channel}
		if hasExit {
			ev.ExitCode = &exit
		}
		if startedRec {
			ev.Status.Started = true
		} else if failedRec {
			ev.Status.Failure = &status.Event{Kind: status.Failed, Reason: reason, Stage: reason, Errno: reason}
		}
		ev.Status.Silent = !startedRec && !failedRec
		for _, d := range []Dialect{linuxDialect, bwrapDialect} {
			for _, mode := range []string{"", NetworkDeny, NetworkLoopback, NetworkProxyOnly} {
				ev.Network = mode
				r := ClassifyExec(ev, d)
				checkClassification(t, ev, d, r)
				if r.Network != "" && (mode == "" || r.Kind != ExecDenied) {
					t.Fatalf("a network refusal under mode %q, kind %s", mode, r.Kind)
				}
			}
		}
	})
}

func checkClassification(t *testing.T, ev Evidence, d Dialect, r ExecClass) {
	if !slices.Contains(execKinds, r.Kind) {
		t.Fatalf("unknown kind %q", r.Kind)
	}
	if ev.StatusChannel && ev.Status.Started && r.Kind == ExecRunnerFailure {
		t.Fatalf("%s: a Started record was classified as a runner failure", d.Backend)
	}
	if len(r.Evidence) > maxEvidence || strings.Contains(r.Evidence, "\n") {
		t.Fatalf("evidence unbounded or multi-line: %d bytes", len(r.Evidence))
	}
	if len(r.Violations) > MaxViolations {
		t.Fatalf("%d violations", len(r.Violations))
	}
	for _, v := range r.Violations {
		if len(v.Snippet) > maxSnippet || strings.ContainsAny(v.Snippet, "\r\n") || len(v.Path) > maxPath || len(v.Target) > maxQuoted {
			t.Fatalf("violation not bounded to one line: %+v", v)
		}
	}
	o := FromExec(r, ev, ExecLimits{}, goldenContext)
	if k, ok := ExecKindOf(o.Kind); !ok || k != r.Kind {
		t.Fatalf("classified %s, but its outcome %s maps to %q: the result's two kinds would disagree", r.Kind, o.Kind, k)
	}
	text := Narrate(o, goldenContext)
	if !utf8.ValidString(text) || len(text) > maxNarration {
		t.Fatalf("narration invalid or too long: %d bytes", len(text))
	}
}

// FuzzNarrate: with a host root planted in every field, the narration of
// every kind never shows the root (outside the mount path), stays bounded
// and is valid UTF-8 without control characters.
func FuzzNarrate(f *testing.F) {
	f.Add(uint8(10), "src/a.go", "note", "*.go", "detail", "home/alice/acme", "/workspace", int64(10))
	f.Add(uint8(11), "../x", "", "", "", "work", "/workspace", int64(0))
	f.Add(uint8(12), "a\x00b\n", "\u202e", "(", "\xff", "srv/a, /srv/b", "/m", int64(-1))
	f.Fuzz(func(t *testing.T, kind uint8, field, note, pattern, detail, root, mount string, n int64) {
		root = path.Clean("/" + root)
		if strings.ContainsRune(root, utf8.RuneError) || !utf8.ValidString(mount) {
			return // a configured root and mount path are valid text
		}
		k := kinds[int(kind)%len(kinds)]
		o := Outcome{Kind: k, Path: field + root, Note: root + note, Pattern: pattern + root + pattern,
			Detail: detail + root, Reason: root, Stage: field, Bound: root + "/b", FileType: note,
			Signal: detail, Scope: root, Program: root + field, Limit: n, Observed: n, Shown: int(n),
			ExitCode: code(int(n)), WriteRoots: []string{root, field}, Violations: []string{root + "/v", detail}}
		c := Context{MountPath: mount, WriteRoots: []string{root + "/w", mount}, Mode: root, HostRoot: root}
		text := Narrate(o, c)
		if c.scrubber().leaks(withoutGiven(text, o)) {
			t.Fatalf("host root %q shown:\n%s", root, text)
		}
		if !utf8.ValidString(text) || len(text) > maxNarration+len(mount)*4 {
			t.Fatalf("narration invalid or too long: %d bytes", len(text))
		}
		if strings.ContainsAny(text, "\n\r") {
			t.Fatalf("narration spans lines: %q", text)
		}
	})
}
