//go:build linux

package workspace

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
	"golang.org/x/sys/unix"
)

func TestReadFileOutcomes(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			f := newFixture(t)
			w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
			for _, tc := range []struct {
				path   string
				want   outcome.Kind
				reason string
			}{
				{"a.txt", outcome.OK, ""},
				{"/workspace/a.txt", outcome.OK, ""},
				{"in/main.go", outcome.OK, ""},         // a link that stays inside
				{"src/up/a.txt", outcome.OK, ""},       // a link to ".." that stays inside
				{"src/sub/../main.go", outcome.OK, ""}, // lexical ".." inside
				{"../outside/sentinel", outcome.PathRejected, "escape"},
				{f.outside + "/sentinel", outcome.PathRejected, "absolute"},
				{"/etc/passwd", outcome.PathRejected, "absolute"},
				{"/workspace/../etc/passwd", outcome.PathRejected, "escape"},
				{"out/sentinel", outcome.PathRejected, ReasonEscape},    // dir link out, mid-path
				{"outfile", outcome.PathRejected, ReasonEscape},         // file link out
				{"abs/sentinel", outcome.PathRejected, ReasonEscape},    // absolute link
				{"src/escape", outcome.PathRejected, ReasonEscape},      // relative link climbing out
				{"proc/etc/passwd", outcome.PathRejected, ReasonEscape}, // link to /proc/self/root
				{"loop", outcome.PathRejected, ReasonLinkLoop},          // a link to itself
				{"secret/key", outcome.DeniedByPolicy, ""},              // denied directly
				{"tosecret/key", outcome.DeniedByPolicy, ""},            // denied through a link
				{"missing.txt", outcome.NotFound, ""},
				{"src", outcome.IsADirectory, ""},
				{"a.txt/x", outcome.NotADirectory, ""},
				{"a\\b", outcome.PathRejected, "backslash"},
				{"~/x", outcome.PathRejected, "home"},
			} {
				_, err := w.ReadFile(tc.path, ReadOptions{MaxBytes: 1 << 20})
				o := wantKind(t, tc.path, err, tc.want)
				if tc.reason != "" && o.Reason != tc.reason {
					t.Errorf("%s: reason %q, want %q", tc.path, o.Reason, tc.reason)
				}
				if strings.Contains(o.Path, f.base) && !strings.Contains(tc.path, f.base) {
					t.Errorf("%s: outcome shows a host path %q", tc.path, o.Path)
				}
				if tc.want == outcome.DeniedByPolicy && (o.Axis != "read" || !errors.Is(err, policy.ErrDenied)) {
					t.Errorf("%s: %+v, want axis read wrapping ErrDenied", tc.path, o)
				}
				if tc.want == outcome.PathRejected && !errors.Is(err, pathrule.ErrPathRefused) {
					t.Errorf("%s: does not wrap ErrPathRefused", tc.path)
				}
			}
			if !mode.walk && w.res.noOpenat2.Load() {
				t.Error("the openat2 run fell back to the walk")
			}
		})
	}
}

// TestMagicLinkRoot puts the root at /proc/self, where "root" and "cwd"
// are magic links: RESOLVE_NO_MAGICLINKS, and the walk's refusal of
// absolute targets, must both refuse them.
func TestMagicLinkRoot(t *testing.T) {
	for _, mode := range resolverModes {
		t.Run(mode.name, func(t *testing.T) {
			pol := &policy.Policy{Root: "/proc/self", Baseline: policy.Read}
			w := open(t, pol, mode.walk)
			for _, p := range []string{"root/etc/passwd", "cwd", "exe", "fd/0"} {
				_, err := w.ReadFile(p, ReadOptions{MaxBytes: 1 << 20})
				wantKind(t, p, err, outcome.PathRejected)
			}
			// Control: an ordinary file there is readable, so the refusals
			// above are about the links.
			if _, err := w.ReadFile("status", ReadOptions{MaxBytes: 1 << 20}); err != nil {
				t.Errorf("status: %v", err)
			}
		})
	}
}

func TestReadFileText(t *testing.T) {
	f := newFixture(t)
	w := open(t, policyFor(f.root, policy.WorkspaceWrite), false)
	res, err := w.ReadFile("a.txt", ReadOptions{MaxBytes: 100})
	if err != nil {
		t.Fatal(err)
	}
	if want := "     1\tone\n     2\ttwo\n     3\tthree\n"; res.Text != want || res.Lines != 3 || res.Path != "/workspace/a.txt" {
		t.Errorf("got %+v", res)
	}
	res, err = w.ReadFile("a.txt", ReadOptions{Offset: 2, Limit: 1, MaxBytes: 100})
	if err != nil || res.Text != "     2\ttwo\n" || !res.More || res.FirstLine != 2 {
		t.Errorf("ranged: %+v %v", res, err)
	}
	res, err = w.ReadFile("a.txt", ReadOptions{Offset: 3, MaxBytes: 100})
	if err != nil || res.Text != "     3\tthree\n" || res.More {
		t.Errorf("tail: %+v %v", res, err)
	}
	res, err = w.ReadFile("a.txt", ReadOptions{Raw: true, MaxBytes: 100})
	if err != nil || string(res.Data) != "one\ntwo\nthree\n" {
		t.Errorf("raw: %+v %v", res, err)
	}
	res, err = w.ReadFile("bin.dat", ReadOptions{MaxBytes: 100})
	if err != nil || !res.Binary || res.Text != "" {
		t.Errorf("binary: %+v %v", res, err)
	}
	o := wantKind(t, "over", func() error { _, err := w.ReadFile("a.txt", ReadOptions{MaxBytes: 5}); return err }(), outcome.OverBudget)
	if o.Limit != 5 || o.Observed != 14 || o.Bound != "maxBytes" {
		t.Errorf("over-budget: %+v", o)
	}
	for _, bad := range []ReadOptions{{}, {MaxBytes: -1}, {MaxBytes: 1, Offset: -1}, {MaxBytes: 1, Raw: true, Limit: 1}} {
		if _, err := w.ReadFile("a.txt", bad); !errors.Is(err, ErrUsage) {
			t.Errorf("%+v: %v, want ErrUsage", bad, err)
		}
	}
}

// TestRangedReadOfLargeFile: a range near the start of a file far larger
// than MaxBytes is served; the same file unranged is refused, never cut.
func TestRangedReadOfLargeFile(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	for range 200_000 {
		b.WriteString("a line of text\n")
	}
	writeHost(t, filepath.Join(f.root, "big.txt"), b.String())
	w := open(t, policyFor(f.root, policy.WorkspaceWrite), false)
	res, err := w.ReadFile("big.txt", ReadOptions{Offset: 10, Limit: 5, MaxBytes: 4096})
	if err != nil || res.Lines != 5 || !res.More || !strings.HasPrefix(res.Text, "    10\t") {
		t.Errorf("ranged: %+v %v", res.Lines, err)
	}
	_, err = w.ReadFile("big.txt", ReadOptions{MaxBytes: 4096})
	wantKind(t, "unranged", err, outcome.OverBudget)
	_, err = w.ReadFile("big.txt", ReadOptions{Offset: 10, MaxBytes: 4096})
	wantKind(t, "open-ended range", err, outcome.OverBudget)
}

func TestSpecialFiles(t *testing.T) {
	f := newFixture(t)
	if err := unix.Mkfifo(filepath.Join(f.root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(f.root, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	want := map[string]string{"fifo": "fifo", "sock": "socket"}
	if os.Geteuid() == 0 {
		err := unix.Mknod(filepath.Join(f.root, "null"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3)))
		testenv.Need(t, "mknod", err)
		want["null"] = "char-device"
	} else {
		testenv.NeedRoot(t)
	}
	for _, mode := range resolverModes {
		w := open(t, policyFor(f.root, policy.WorkspaceWrite), mode.walk)
		for name, typ := range want {
			// A blocking open of the fifo would hang this test forever.
			_, err := w.ReadFile(name, ReadOptions{MaxBytes: 10})
			if o := wantKind(t, name, err, outcome.NotARegularFile); o.FileType != typ {
				t.Errorf("%s: file type %q, want %q", name, o.FileType, typ)
			}
			_, err = w.WriteFile(name, []byte("x"))
			wantKind(t, name+" write", err, outcome.NotARegularFile)
			_, err = w.ReadMedia(name, 10)
			wantKind(t, name+" media", err, outcome.NotARegularFile)
		}
	}
}

func TestReadMedia(t *testing.T) {
	f := newFixture(t)
	media := map[string]string{
		"p.png": "\x89PNG\r\n\x1a\nrest", "j.jpg": "\xff\xd8\xffrest", "g.gif": "GIF89arest",
		"w.webp": "RIFF\x00\x00\x00\x00WEBPVP8 ", "d.pdf": "%PDF-1.7\n", "fake.png": "not an image",
	}
	for name, body := range media {
		writeHost(t, filepath.Join(f.root, name), body)
	}
	w := open(t, policyFor(f.root, policy.WorkspaceWrite), false)
	for name, mime := range map[string]string{"p.png": "image/png", "j.jpg": "image/jpeg", "g.gif": "image/gif", "w.webp": "image/webp", "d.pdf": "application/pdf"} {
		m, err := w.ReadMedia(name, 1<<10)
		if err != nil || m.MIME != mime || string(m.Data) != media[name] {
			t.Errorf("%s: %+v %v", name, m.MIME, err)
		}
	}
	_, err := w.ReadMedia("fake.png", 1<<10)
	wantKind(t, "fake.png", err, outcome.UnknownMedia)
	_, err = w.ReadMedia("p.png", 4)
	wantKind(t, "small bound", err, outcome.OverBudget)
	_, err = w.ReadMedia("secret/key", 1<<10)
	wantKind(t, "secret", err, outcome.DeniedByPolicy)
	if _, err := w.ReadMedia("p.png", 0); !errors.Is(err, ErrUsage) {
		t.Errorf("zero bound: %v", err)
	}
}
