package tools

import (
	"encoding/base64"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

func pagedFixture(t *testing.T) *fixture {
	f := newFixture(t, setup{mode: policy.WorkspaceWrite, entries: []policy.Entry{
		{Path: "secret", Access: policy.Deny}, {Path: "secret/open", Access: policy.Read},
	}})
	for i := range 30 {
		f.write(fmt.Sprintf("d%d/f%02d.txt", i%3, i), "needle one\nhay\nneedle two\n")
	}
	f.write("secret/key.txt", "needle secret\n")
	f.write("secret/open/ok.txt", "needle open\n")
	return f
}

// pages calls a tool page after page and returns every page's data.
func pages[D any](t *testing.T, f *fixture, tool string, args obj_, next func(D) string) []D {
	t.Helper()
	var out []D
	for range 200 {
		r := f.call(tool, args)
		if r.IsError {
			t.Fatalf("%s %v: %s", tool, args, r.Text)
		}
		if strings.Contains(r.Text, "secret/key") || strings.Contains(r.Text, "needle secret") {
			t.Fatalf("a denied path was shown:\n%s", r.Text)
		}
		d := r.Data.(D)
		out = append(out, d)
		c := next(d)
		if c == "" {
			return out
		}
		if !strings.Contains(r.Text, c) {
			t.Fatalf("the text does not give the cursor:\n%s", r.Text)
		}
		args = maps.Clone(args)
		args["cursor"] = c
	}
	t.Fatal("no last page")
	return nil
}

func TestGlobFilesPages(t *testing.T) {
	f := pagedFixture(t)
	var got []string
	ps := pages(t, f, "glob_files", obj_{"pattern": "**/*.txt", "max_results": 4}, func(d *GlobData) string { return d.NextCursor })
	for _, d := range ps {
		got = append(got, d.Paths...)
	}
	if len(ps) != 8 || ps[0].Total != 31 || len(got) != 31 || !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != 31 {
		t.Fatalf("%d pages, total %d, %d paths: %v", len(ps), ps[0].Total, len(got), got)
	}
	if !slices.Contains(got, "/workspace/secret/open/ok.txt") {
		t.Error("the readable carve-out inside a denied directory is missing")
	}
}

func TestGrepFilesPages(t *testing.T) {
	f := pagedFixture(t)
	n := 0
	ps := pages(t, f, "grep_files", obj_{"pattern": "needle", "max_matches": 7}, func(d *GrepData) string { return d.NextCursor })
	for _, d := range ps {
		n += d.Matches
	}
	if n != 61 || ps[0].Total != 61 || len(ps) != 9 {
		t.Fatalf("%d matches in %d pages, total %d", n, len(ps), ps[0].Total)
	}
	// Without a limit the whole result fits one page.
	if r := f.call("grep_files", obj_{"pattern": "needle"}); r.Data.(*GrepData).Matches != 61 || r.Data.(*GrepData).NextCursor != "" {
		t.Fatalf("one page: %s", r.Text)
	}
}

// TestCursorRefused: a cursor is only good for the search that made it. A
// made-up, edited or truncated one, or one moved to other arguments (a
// wider path, another pattern, the other tool), is refused before any
// search.
func TestCursorRefused(t *testing.T) {
	f := pagedFixture(t)
	args := obj_{"pattern": "needle", "path": "d1", "max_matches": 2}
	good := f.call("grep_files", args).Data.(*GrepData).NextCursor
	if good == "" {
		t.Fatal("no cursor")
	}
	raw, _ := base64.RawURLEncoding.DecodeString(good)
	flipped := slices.Clone(raw)
	flipped[len(flipped)-1] ^= 1 // the path
	forged := base64.RawURLEncoding.EncodeToString(append(slices.Clone(raw[:cursorMAC]), []byte("0\x00../secret")...))
	for name, c := range map[string]struct {
		tool string
		args obj_
	}{
		"made-up":        {"grep_files", obj_{"pattern": "needle", "cursor": "AAAA"}},
		"not-base64":     {"grep_files", obj_{"pattern": "needle", "cursor": "!!"}},
		"edited":         {"grep_files", with(args, "cursor", base64.RawURLEncoding.EncodeToString(flipped))},
		"forged":         {"grep_files", with(args, "cursor", forged)},
		"truncated":      {"grep_files", with(args, "cursor", good[:10])},
		"wider-path":     {"grep_files", with(with(args, "path", ""), "cursor", good)},
		"other-pattern":  {"grep_files", with(with(args, "pattern", "hay"), "cursor", good)},
		"other-tool":     {"glob_files", obj_{"pattern": "**", "path": "d1", "max_results": 2, "cursor": good}},
		"other-page-len": {"grep_files", with(with(args, "max_matches", 3), "cursor", good)},
	} {
		r := f.call(c.tool, c.args)
		if r.Outcome.Kind != outcome.InvalidArguments || !strings.Contains(r.Text, "cursor") {
			t.Errorf("%s: %s: %s", name, r.Outcome.Kind, r.Text)
		}
	}
	// Control: the good cursor works with its own arguments.
	if r := f.call("grep_files", with(args, "cursor", good)); r.Outcome.Kind != outcome.OK {
		t.Fatalf("control: %s", r.Text)
	}
}

func with(m obj_, k string, v any) obj_ {
	c := maps.Clone(m)
	c[k] = v
	return c
}
