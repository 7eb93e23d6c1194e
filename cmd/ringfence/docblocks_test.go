package main

// The Markdown reading behind the documentation tests (docs_test.go).

import (
	"os"
	"regexp"
	"strings"
)

// docBlock is one fenced code block of a Markdown file, with the HTML
// comments on the lines right above its fence (`<!-- key: value -->`).
type docBlock struct {
	line    int    // 1-based line of the opening fence
	info    string // the info string: console, sh, json …
	body    string // the lines between the fences, each ending in \n
	markers []string
}

// marker returns the value of the comment `<!-- key: value -->` above the
// block, or "" (a key with an empty value returns "-").
func (b docBlock) marker(key string) string {
	for _, m := range b.markers {
		if v, ok := strings.CutPrefix(m, key+":"); ok {
			if v = strings.TrimSpace(v); v == "" {
				return "-"
			}
			return v
		}
	}
	return ""
}

var markerLine = regexp.MustCompile(`^\s*<!--\s*(.*?)\s*-->\s*$`)

// fencedBlocks reads path's fenced blocks.
func fencedBlocks(path string) ([]docBlock, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseBlocks(string(b)), nil
}

// parseBlocks splits Markdown into its fenced blocks (``` or ~~~, at least
// three, closed by a fence of the same character at least as long). An
// unclosed block runs to the end, as CommonMark has it.
func parseBlocks(md string) []docBlock {
	var out []docBlock
	var pending []string
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := markerLine.FindStringSubmatch(l); m != nil {
			pending = append(pending, m[1])
			continue
		}
		fence, info, ok := openFence(l)
		if !ok {
			if strings.TrimSpace(l) != "" {
				pending = nil
			}
			continue
		}
		blk := docBlock{line: i + 1, info: info, markers: pending}
		pending = nil
		var body strings.Builder
		for i++; i < len(lines); i++ {
			if closesFence(lines[i], fence) {
				break
			}
			body.WriteString(lines[i] + "\n")
		}
		blk.body = body.String()
		out = append(out, blk)
	}
	return out
}

func openFence(l string) (fence, info string, ok bool) {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return "", "", false
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return "", "", false
	}
	info = strings.TrimSpace(t[n:])
	if t[0] == '`' && strings.Contains(info, "`") {
		return "", "", false
	}
	if f := strings.Fields(info); len(f) > 0 {
		info = f[0]
	}
	return t[:n], info, true
}

func closesFence(l, fence string) bool {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return false
	}
	t = strings.TrimRight(t, " \t")
	return len(t) >= len(fence) && strings.Trim(t, fence[:1]) == "" && t[0] == fence[0]
}

// consoleScript splits a console block into the commands ("$ " lines, a
// trailing backslash continues one) and the output they are said to give.
func consoleScript(body string) (cmds []string, want string) {
	var out strings.Builder
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		c, ok := strings.CutPrefix(lines[i], "$ ")
		if !ok {
			out.WriteString(lines[i] + "\n")
			continue
		}
		for strings.HasSuffix(c, "\\") && i+1 < len(lines) {
			i++
			c += "\n" + lines[i]
		}
		cmds = append(cmds, c)
	}
	return cmds, out.String()
}

var spaces = regexp.MustCompile(`\s+`)

// outputMatches compares what a command printed with what the document
// shows: whitespace runs are one space (a document wraps long lines), and
// "…" in the document stands for any text, so timings, hashes and
// host-specific lines are elided there visibly instead of normalised away
// here. Everything else must be equal.
func outputMatches(want, got string) bool {
	want = strings.TrimSpace(spaces.ReplaceAllString(want, " "))
	got = strings.TrimSpace(spaces.ReplaceAllString(got, " "))
	parts := strings.Split(want, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(strings.TrimSpace(p))
	}
	re, err := regexp.Compile(`(?s)^` + strings.Join(parts, `\s*.*?\s*`) + `$`)
	return err == nil && re.MatchString(got)
}
