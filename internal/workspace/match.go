package workspace

import (
	"bytes"
	"regexp"
	"regexp/syntax"
)

// matcher finds matching lines in a file's bytes. A literal every match
// must contain is searched for first with bytes.Index (which is SIMD in the
// runtime); the regexp only runs on the lines that hold it, and not at all
// when the pattern is that literal.
type matcher struct {
	re   *regexp.Regexp
	lit  []byte // required literal, case-sensitive; nil if none
	pure bool   // the whole pattern is lit
	// whole, when set, is tried on the whole buffer first: a file where it
	// finds nothing cannot have a matching line.
	whole *regexp.Regexp
}

// compileMatcher compiles pattern; the error text is the regexp parser's,
// which only ever repeats the pattern.
func compileMatcher(pattern string, caseInsensitive bool) (*matcher, error) {
	flags := syntax.Perl
	if caseInsensitive {
		flags |= syntax.FoldCase
	}
	ast, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if caseInsensitive {
		prefix = "(?i)"
	}
	re, err := regexp.Compile(prefix + pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re}
	ast = ast.Simplify()
	if lit := requiredLiteral(ast); lit != "" {
		m.lit = []byte(lit)
		m.pure = ast.Op == syntax.OpLiteral && ast.Flags&syntax.FoldCase == 0
	} else if !hasAnchor(ast) {
		m.whole, _ = regexp.Compile("(?m)" + prefix + pattern)
	}
	return m, nil
}

// requiredLiteral is the longest case-sensitive literal that every match
// of re contains, or "".
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, s := range re.Sub {
			if l := requiredLiteral(s); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return ""
}

func hasAnchor(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine:
		return true
	}
	for _, s := range re.Sub {
		if hasAnchor(s) {
			return true
		}
	}
	return false
}

// hit is one matching line: its number and its bounds in the buffer.
type hit struct {
	line       int
	start, end int // end excludes the newline
}

// find returns the matching lines of data, at most max of them.
func (m *matcher) find(data []byte, max int) []hit {
	if m.lit != nil {
		return m.findLiteral(data, max)
	}
	if m.whole != nil && !m.whole.Match(data) {
		return nil
	}
	var hits []hit
	line, start := 1, 0
	for start <= len(data) && len(hits) < max {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += start
		}
		if (end > start || end < len(data)) && m.re.Match(data[start:end]) {
			hits = append(hits, hit{line, start, end})
		}
		if end == len(data) {
			break
		}
		line, start = line+1, end+1
	}
	return hits
}

// findLiteral jumps from one occurrence of the literal to the next, checks
// the line around it, and counts newlines only over the stretch it skipped.
func (m *matcher) findLiteral(data []byte, max int) []hit {
	var hits []hit
	line, counted, from := 1, 0, 0
	for len(hits) < max {
		i := bytes.Index(data[from:], m.lit)
		if i < 0 {
			break
		}
		pos := from + i
		start := bytes.LastIndexByte(data[:pos], '\n') + 1
		end := bytes.IndexByte(data[pos:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += pos
		}
		line += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		if m.pure || m.re.Match(data[start:end]) {
			hits = append(hits, hit{line, start, end})
		}
		from = end + 1
		if from >= len(data) {
			break
		}
	}
	return hits
}
