package execpolicy

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

var errParserPanic = errors.New("execpolicy: shell parser failed")

// parseScript parses src as bash. The parser is a dependency: should it
// panic on some input, that input is simply unreadable.
func parseScript(src string) (f *syntax.File, err error) {
	defer func() {
		if recover() != nil {
			f, err = nil, errParserPanic
		}
	}()
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// script classifies a shell string: every command in it, each substitution,
// each redirection; the whole is its riskiest part.
func (s *state) script(src string, depth int) Classification {
	switch {
	case isDynamic(src):
		return s.leaf(Unknown, "sh", "the script is computed when the command runs")
	case len(src) > maxScriptBytes:
		return s.leaf(Unknown, "sh", "the script is too large to read")
	case depth > maxDepth || bracketDepth(src) > maxBrackets:
		return s.leaf(Unknown, "sh", "commands nested too deeply to read")
	}
	f, err := parseScript(src)
	if err != nil {
		return s.leaf(Unknown, "sh", "the script cannot be parsed")
	}
	w := &walker{s: s, funcs: map[string]bool{}, bombs: map[string]bool{}}
	w.collectFuncs(f)
	parts := w.stmts(f.Stmts, depth+1)
	if len(parts) == 0 {
		return s.leaf(Observe, "sh", "an empty script")
	}
	return aggregate(parts)
}

// maxBrackets bounds how deeply brackets may nest in a script before it is
// parsed: the parser's time and memory grow with nesting, and no script an
// agent means to run nests hundreds deep.
const maxBrackets = 200

// bracketDepth is the deepest nesting of ( and { in src, counted without
// regard to quoting (an over-count only makes a script unknown).
func bracketDepth(src string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{':
			depth++
			deepest = max(deepest, depth)
		case ')', '}':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// walker reads one parsed script.
type walker struct {
	s     *state
	funcs map[string]bool // functions the script defines
	bombs map[string]bool // functions that call themselves in a pipe or background
}

// collectFuncs notes every function the script defines, wherever it is
// defined, so that a call to one is never taken for the program it shadows.
func (w *walker) collectFuncs(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			w.funcs[fd.Name.Value] = true
			if selfSpawning(fd) {
				w.bombs[fd.Name.Value] = true
			}
		}
		return true
	})
}

// selfSpawning reports whether a function calls itself from a pipeline or
// in the background: each call then starts at least two more, the shape of
// a fork bomb such as :(){ :|:& };:.
func selfSpawning(fd *syntax.FuncDecl) bool {
	self, spawns := false, false
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			spawns = spawns || n.Background || n.Coprocess
		case *syntax.BinaryCmd:
			spawns = spawns || n.Op == syntax.Pipe || n.Op == syntax.PipeAll
		case *syntax.CallExpr:
			if len(n.Args) > 0 && n.Args[0].Lit() == fd.Name.Value {
				self = true
			}
		}
		return true
	})
	return self && spawns
}

func (w *walker) stmts(list []*syntax.Stmt, depth int) []Classification {
	parts := make([]Classification, 0, len(list))
	for _, st := range list {
		parts = append(parts, w.stmt(st, depth))
	}
	return parts
}

// block classifies a list of statements as one part.
func (w *walker) block(list []*syntax.Stmt, depth int) Classification {
	if depth > maxDepth {
		return w.s.leaf(Unknown, "sh", "commands nested too deeply to read")
	}
	parts := w.stmts(list, depth+1)
	if len(parts) == 0 {
		return w.s.leaf(Observe, "sh", "an empty block")
	}
	return aggregate(parts)
}

func (w *walker) stmt(st *syntax.Stmt, depth int) Classification {
	var parts []Classification
	if st.Cmd != nil {
		parts = append(parts, w.cmd(st.Cmd, depth))
	}
	for _, r := range st.Redirs {
		parts = append(parts, w.redirect(r, depth)...)
	}
	if len(parts) == 0 {
		return w.s.leaf(Observe, "sh", "only redirections that write nothing")
	}
	return aggregate(parts)
}

// cmd classifies one compound or simple command.
func (w *walker) cmd(c syntax.Command, depth int) Classification {
	w.s.steps++
	if depth > maxDepth || w.s.steps > maxSteps {
		return w.s.leaf(Unknown, "sh", "commands nested too deeply to read")
	}
	switch x := c.(type) {
	case *syntax.CallExpr:
		return w.call(x, depth)
	case *syntax.BinaryCmd:
		return w.chain(x, depth)
	case *syntax.Subshell:
		return w.block(x.Stmts, depth)
	case *syntax.Block:
		return w.block(x.Stmts, depth)
	case *syntax.IfClause:
		return w.ifClause(x, depth)
	case *syntax.WhileClause:
		return w.block(append(append([]*syntax.Stmt{}, x.Cond...), x.Do...), depth)
	case *syntax.ForClause:
		return w.forClause(x, depth)
	case *syntax.CaseClause:
		return w.caseClause(x, depth)
	case *syntax.FuncDecl:
		return w.funcDecl(x, depth)
	case *syntax.ArithmCmd, *syntax.LetClause:
		return w.withSubsts(w.s.leaf(Observe, "sh", "arithmetic"), c, depth)
	case *syntax.TestClause:
		return w.withSubsts(w.s.leaf(Observe, "sh", "a test"), c, depth)
	case *syntax.DeclClause:
		return w.decl(x, depth)
	case *syntax.TimeClause:
		if x.Stmt == nil {
			return w.s.leaf(Observe, "time", "prints timing")
		}
		return w.block([]*syntax.Stmt{x.Stmt}, depth)
	case *syntax.CoprocClause:
		return w.block([]*syntax.Stmt{x.Stmt}, depth)
	}
	return w.s.leaf(Unknown, "sh", "a shell construct the classifier does not read")
}

// chain flattens a pipeline or an &&/||/; list without recursing per link,
// so a long chain costs no depth.
func (w *walker) chain(b *syntax.BinaryCmd, depth int) Classification {
	var parts []Classification
	stack := []*syntax.Stmt{b.Y, b.X}
	for len(stack) > 0 && w.s.steps <= maxSteps {
		st := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if bc, ok := st.Cmd.(*syntax.BinaryCmd); ok && len(st.Redirs) == 0 {
			w.s.steps++
			stack = append(stack, bc.Y, bc.X)
			continue
		}
		parts = append(parts, w.stmt(st, depth))
	}
	if len(stack) > 0 {
		parts = append(parts, w.s.leaf(Unknown, "sh", "too many commands to read"))
	}
	return aggregate(parts)
}

func (w *walker) ifClause(x *syntax.IfClause, depth int) Classification {
	var list []*syntax.Stmt
	for c := x; c != nil; c = c.Else {
		list = append(list, c.Cond...)
		list = append(list, c.Then...)
	}
	return w.block(list, depth)
}

func (w *walker) forClause(x *syntax.ForClause, depth int) Classification {
	parts := []Classification{w.block(x.Do, depth)}
	parts = append(parts, w.substs(x.Loop, depth)...)
	return aggregate(parts)
}

func (w *walker) caseClause(x *syntax.CaseClause, depth int) Classification {
	parts := w.substs(x.Word, depth)
	for _, it := range x.Items {
		for _, p := range it.Patterns {
			parts = append(parts, w.substs(p, depth)...)
		}
		parts = append(parts, w.block(it.Stmts, depth))
	}
	if len(parts) == 0 {
		return w.s.leaf(Observe, "case", "an empty case")
	}
	return aggregate(parts)
}

// funcDecl classifies a function's body where it is defined: whatever the
// function does is counted whether or not it is called.
func (w *walker) funcDecl(x *syntax.FuncDecl, depth int) Classification {
	if x.Name != nil && w.bombs[x.Name.Value] {
		return w.s.leaf(Critical, x.Name.Value, "a function that spawns copies of itself (a fork bomb)")
	}
	if x.Body == nil {
		return w.s.leaf(Observe, "sh", "an empty function")
	}
	return w.block([]*syntax.Stmt{x.Body}, depth)
}

func (w *walker) decl(x *syntax.DeclClause, depth int) Classification {
	parts := []Classification{w.s.leaf(Observe, x.Variant.Value, "declares shell variables")}
	for _, a := range x.Args {
		parts = append(parts, w.assign(a, depth)...)
	}
	return aggregate(parts)
}

// withSubsts adds to own the substitutions found anywhere in n.
func (w *walker) withSubsts(own Classification, n syntax.Node, depth int) Classification {
	return aggregate(append([]Classification{own}, w.substs(n, depth)...))
}

// substs classifies the command and process substitutions in n (not those
// nested inside them, which their own script reading finds).
func (w *walker) substs(n syntax.Node, depth int) []Classification {
	if n == nil {
		return nil
	}
	var parts []Classification
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			parts = append(parts, w.block(x.Stmts, depth))
			return false
		case *syntax.ProcSubst:
			parts = append(parts, w.block(x.Stmts, depth))
			return false
		}
		return true
	})
	return parts
}
