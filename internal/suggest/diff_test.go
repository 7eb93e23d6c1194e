package suggest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// applyDiff applies a unified diff made by Diff, checking every context
// and removed line against old: a hunk that does not fit is an error.
func applyDiff(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	a := splitLines(old)
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no header")
	}
	var out []string
	pos := 0
	for i := 2; i < len(lines); {
		var as, an, bs, bn int
		h := lines[i]
		if _, err := fmt.Sscanf(strings.NewReplacer(",", " ").Replace(h), "@@ -%d %d +%d %d @@", &as, &an, &bs, &bn); err != nil {
			// single-line forms
			f := strings.Fields(h)
			if len(f) < 4 {
				return "", fmt.Errorf("bad hunk header %q", h)
			}
			as, an = rng(f[1][1:])
			bs, bn = rng(f[2][1:])
		}
		start := as - 1
		if an == 0 {
			start = as
		}
		if start < pos {
			return "", fmt.Errorf("hunks overlap")
		}
		out = append(out, a[pos:start]...)
		pos = start
		i++
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "@@"); i++ {
			l := lines[i]
			switch l[0] {
			case ' ', '-':
				if pos >= len(a) || a[pos] != l[1:] {
					return "", fmt.Errorf("context mismatch at old line %d", pos+1)
				}
				if l[0] == ' ' {
					out = append(out, l[1:])
				}
				pos++
			case '+':
				out = append(out, l[1:])
			}
		}
		_ = bs
		_ = bn
	}
	out = append(out, a[pos:]...)
	if len(out) == 0 {
		return "", nil
	}
	return strings.Join(out, "\n") + "\n", nil
}

func rng(s string) (int, int) {
	st, n, ok := strings.Cut(s, ",")
	a, _ := strconv.Atoi(st)
	if !ok {
		return a, 1
	}
	b, _ := strconv.Atoi(n)
	return a, b
}

func TestDiffApplies(t *testing.T) {
	lines := func(n int, tag string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%d\n", tag, i)
		}
		return b.String()
	}
	for _, c := range []struct{ old, new string }{
		{"", "a\n"},
		{"a\n", ""},
		{"a\nb\nc\n", "a\nx\nc\n"},
		{lines(20, "l"), lines(20, "l") + "tail\n"},
		{lines(20, "l"), "head\n" + lines(20, "l")},
		{lines(30, "l"), strings.Replace(strings.Replace(lines(30, "l"), "l3\n", "X\n", 1), "l25\n", "Y\nZ\n", 1)},
		{"same\n", "same\n"},
	} {
		d := Diff("f.toml", c.old, c.new, c.old == "")
		got, err := applyDiff(c.old, d)
		if err != nil || got != c.new {
			t.Errorf("diff %q -> %q:\n%s\napplied: %q, %v", c.old, c.new, d, got, err)
		}
	}
	if d := Diff("f", "a\n", "b\n", false); !strings.Contains(d, "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n") {
		t.Errorf("diff = %q", d)
	}
	if d := Diff("f", "", "b\n", true); !strings.HasPrefix(d, "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+b\n") {
		t.Errorf("created diff = %q", d)
	}
}

func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x\n")
	f.Fuzz(func(t *testing.T, old, new string) {
		// Line-based: texts end in a newline and hold no '\r' trickery
		// beyond what splitLines keeps.
		if old != "" && !strings.HasSuffix(old, "\n") || new != "" && !strings.HasSuffix(new, "\n") {
			return
		}
		if strings.Contains(old, "\n\n") && old == "\n" || old == "\n" || new == "\n" {
			return
		}
		got, err := applyDiff(old, Diff("f", old, new, false))
		if err != nil || got != new {
			t.Fatalf("apply(diff(%q, %q)) = %q, %v", old, new, got, err)
		}
	})
}
