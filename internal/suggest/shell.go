package suggest

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxCommands bounds the simple commands read out of one line.
const maxCommands = 32

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true}

func isShell(p string) bool { return shells[path.Base(p)] }

// simpleCommands are the commands a refused argv runs, each as its literal
// words: a shell line (sh -c LINE) is parsed and every simple command in
// it taken up to its first word that is not a plain literal (a variable,
// a substitution, a glob: a rule cannot name what it expands to); any
// other argv is itself. A command with no literal program is left out.
func simpleCommands(argv []string) [][]string {
	if !(len(argv) == 3 && isShell(argv[0]) && argv[1] == "-c") {
		return [][]string{argv}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(argv[2]), "")
	if err != nil {
		return nil
	}
	var out [][]string
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(out) >= maxCommands {
			return len(out) < maxCommands
		}
		var words []string
		for _, w := range call.Args {
			s, ok := literal(w)
			if !ok {
				break
			}
			words = append(words, s)
		}
		if len(words) > 0 {
			out = append(out, words)
		}
		return true
	})
	return out
}

// literal is a word's value when it is plain text: unquoted literals
// without a backslash or a glob character, single-quoted text, and
// double-quoted text with nothing expanded inside.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, `\*?[{~`) {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsAny(l.Value, `\`) {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), b.Len() > 0 || len(w.Parts) > 0
}
