package execpolicy

import "strings"

// shell reads a shell invocation: "-c SCRIPT" (alone or in a cluster such as
// -lc, -euc) is parsed and classified; a script file runs code the
// classifier does not read; no operand (or -s, -i) reads commands from
// standard input, which it never sees.
func shell(s *state, argv []string, depth int) (verdict, []Classification) {
	args := argv[1:]
	cmdMode, stdin := false, false
	i := 0
loop:
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-":
			i++
			break loop
		case a == "--rcfile" || a == "--init-file":
			return v(Unknown, "runs a start-up file the classifier does not read"), nil
		case a == "-c" || a == "--command":
			cmdMode = true
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			cmdMode = cmdMode || a[0] == '-' && strings.Contains(a[1:], "c")
			stdin = stdin || a[0] == '-' && strings.ContainsAny(a[1:], "si")
			i += strings.Count(a[1:], "o") + strings.Count(a[1:], "O") // -o pipefail
		default:
			break loop
		}
	}
	rest := []string{}
	if i < len(args) {
		rest = args[i:]
	}
	switch {
	case cmdMode && len(rest) > 0:
		return verdict{cap: Observe, quiet: true}, []Classification{s.script(rest[0], depth+1)}
	case cmdMode, stdin, len(rest) == 0:
		return v(Unknown, stdinReason), nil
	case isDynamic(rest[0]):
		return v(Unknown, "runs a script file named at run time"), nil
	}
	return v(Use, "runs a shell script file, which the classifier does not read"), nil
}

// find searches (observe); -delete and -fprint write; -exec and friends run
// a command per file, classified with {} standing for the search root so
// that "find / -exec rm -rf {} +" reads as what it can reach.
func find(s *state, argv []string, depth int) (verdict, []Classification) {
	args := argv[1:]
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P" || strings.HasPrefix(args[i], "-O") || args[i] == "-D") {
		if args[i] == "-D" {
			i++
		}
		i++
	}
	var roots []string
	for ; i < len(args) && !findExpr(args[i]); i++ {
		roots = append(roots, args[i])
	}
	root := "."
	if len(roots) > 0 {
		root = roots[0]
	}
	own := v(Observe, "searches for files")
	var parts []Classification
	for j := i; j < len(args); j++ {
		switch args[j] {
		case "-delete":
			own = v(Modify, "deletes the files it finds")
			if anyBroad(roots) {
				return v(Critical, "deletes files under the root, the home directory or a parent"), parts
			}
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if own.cap < Modify {
				own = v(Modify, "writes the list of files to a file")
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			k := j + 1
			for k < len(args) && args[k] != ";" && args[k] != "+" {
				k++
			}
			inner := make([]string, 0, k-j-1)
			for _, w := range args[j+1 : k] {
				inner = append(inner, strings.ReplaceAll(w, "{}", root))
			}
			if len(inner) == 0 {
				parts = append(parts, s.leaf(Unknown, "find", "an -exec without a command"))
			}
			parts = append(parts, s.run(inner, depth)...)
			j = k
		}
	}
	return own, parts
}

func findExpr(a string) bool {
	return strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == ","
}

func anyBroad(ws []string) bool {
	for _, w := range ws {
		if broadTarget(w) {
			return true
		}
	}
	return false
}
