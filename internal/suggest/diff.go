package suggest

import (
	"fmt"
	"strings"
)

// maxDiffCells bounds the LCS table: beyond it the changed middle is shown
// as one removal and one addition (still a correct patch, only larger).
const maxDiffCells = 4 << 20

// Diff is a unified diff (3 lines of context) from old to new, naming
// the file a/NAME and b/NAME as git does; a file that does not exist yet
// is /dev/null. Equal texts give "".
func Diff(name, old, new string, created bool) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	ops := diffOps(a, b)
	var out strings.Builder
	from := "a/" + name
	if created {
		from = "/dev/null"
	}
	fmt.Fprintf(&out, "--- %s\n+++ b/%s\n", from, name)
	const ctx = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from ctx lines before this change to ctx lines after the
		// last change closer than 2*ctx to the one before it.
		start := max(i-ctx, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		aStart, bStart, aN, bN := ops[start].a, ops[start].b, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				aN++
			}
			if o.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", rangeOf(aStart, aN), rangeOf(bStart, bN))
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.text)
			out.WriteByte('\n')
		}
		i = end
	}
	return out.String()
}

func rangeOf(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// op is one line of the diff; a and b are the 0-based line numbers in the
// old and new text where it sits.
type op struct {
	kind byte // ' ', '-', '+'
	text string
	a, b int
}

// diffOps is a shortest-edit line diff: common ends trimmed, the middle by
// longest common subsequence.
func diffOps(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', a[i], i, i})
	}
	am, bm := a[pre:len(a)-suf], b[pre:len(b)-suf]
	ops = append(ops, middle(am, bm, pre)...)
	for k := 0; k < suf; k++ {
		i, j := len(a)-suf+k, len(b)-suf+k
		ops = append(ops, op{' ', a[i], i, j})
	}
	return ops
}

func middle(a, b []string, off int) []op {
	var ops []op
	if (len(a)+1)*(len(b)+1) > maxDiffCells {
		for i, l := range a {
			ops = append(ops, op{'-', l, off + i, off})
		}
		for j, l := range b {
			ops = append(ops, op{'+', l, off + len(a), off + j})
		}
		return ops
	}
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], off + i, off + j})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[(i+1)*w+j] >= lcs[i*w+j+1]):
			ops = append(ops, op{'-', a[i], off + i, off + j}) // removals first, as diff(1)
			i++
		default:
			ops = append(ops, op{'+', b[j], off + i, off + j})
			j++
		}
	}
	return ops
}
