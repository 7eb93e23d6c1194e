package execpolicy

import (
	"path"
	"strconv"
	"strings"
	"sync"
)

// Bounds on the work one classification may do. Past any of them the
// command is Unknown: a classifier that gives up asks, it never allows and
// never exhausts the stack.
const (
	maxDepth       = 24        // nested wrappers, scripts and compound commands
	maxSteps       = 4096      // commands examined in one classification
	maxArgvBytes   = 256 << 10 // total size of one argv
	maxScriptBytes = 64 << 10  // size of one shell string
)

// verdict is a handler's judgement of one command before its outcome is
// looked up.
type verdict struct {
	cap    Capability
	reason string
	// quiet marks a wrapper that adds nothing of its own (timeout, nice,
	// sh -c): it is reported only when it wraps nothing.
	quiet bool
}

// handler judges one argv whose program the table knows. It returns the
// command's own verdict and the classifications of commands it runs.
type handler func(s *state, argv []string, depth int) (verdict, []Classification)

// state is one classification in progress.
type state struct {
	c     *Classifier
	steps int
	// leftTree is set once a script has changed directory to somewhere that
	// may be outside the working tree: relative program paths then name
	// unknown files.
	leftTree bool
}

// Classify classifies argv, program first. A shell string inside it is read
// through; the result is the riskiest thing found.
func (c *Classifier) Classify(argv []string) Classification {
	n := 0
	for _, a := range argv {
		n += len(a)
	}
	s := &state{c: c.orDefault()}
	if n > maxArgvBytes {
		return s.leaf(Unknown, "", "the command is too large to read")
	}
	return s.argv(argv, 0)
}

func (s *state) leaf(c Capability, program, reason string) Classification {
	return Classification{Capability: c, Outcome: s.c.outcomes[c], Program: program, Reason: reason}
}

// argv classifies one command given as words.
func (s *state) argv(argv []string, depth int) Classification {
	s.steps++
	switch {
	case len(argv) == 0 || argv[0] == "":
		return s.leaf(Unknown, "", "an empty command")
	case depth > maxDepth:
		return s.leaf(Unknown, progLabel(argv[0]), "commands nested too deeply to read")
	case s.steps > maxSteps:
		return s.leaf(Unknown, progLabel(argv[0]), "too many commands to read")
	}
	v, inner, name := s.judge(argv, depth)
	own := s.leaf(v.cap, name, v.reason)
	if r := s.c.rule(argv); r != nil {
		own = ruled(*r, v, name)
		v.quiet = false
	}
	if v.quiet && len(inner) > 0 {
		return aggregate(inner)
	}
	return aggregate(append([]Classification{own}, inner...))
}

// ruled is a command decided by a policy rule. A rule that allows a command
// the table does not know vouches for it, so it is reported as use: unknown
// is never allowed.
func ruled(r compiledRule, v verdict, name string) Classification {
	c := v.cap
	if c == Unknown && r.outcome == Allow {
		c = Use
	}
	reason := "policy rule " + strconv.Itoa(r.index)
	if r.reason != "" {
		reason += ": " + r.reason
	}
	return Classification{Capability: c, Outcome: r.outcome, Program: name, Reason: reason}
}

// judge finds the program and asks the table about it.
func (s *state) judge(argv []string, depth int) (verdict, []Classification, string) {
	prog := argv[0]
	label := progLabel(prog)
	if isDynamic(prog) || prog != "[" && strings.ContainsAny(prog, "*?[") {
		return verdict{cap: Unknown, reason: "the program name is computed when the command runs"}, nil, label
	}
	name, ok := systemName(prog)
	if !ok {
		v, inner := s.relative(argv, depth)
		return screenArgs(prog, argv, v), inner, prog
	}
	name = family(name)
	h, ok := lookup(name)
	if !ok {
		return verdict{cap: Unknown, reason: "not in the built-in table"}, nil, name
	}
	v, inner := h(s, argv, depth)
	return screenArgs(name, argv, v), inner, name
}

// relative judges a program named by a path outside the system directories.
// An absolute one, one that climbs out of the working directory, or any
// after a cd out of the working tree is unknown. Otherwise it is the
// working tree's own program (use) — but if its name is one the table
// knows, it is judged as that program too, since a cd may have made
// bin/rm the system's rm.
func (s *state) relative(argv []string, depth int) (verdict, []Classification) {
	prog := argv[0]
	clean := path.Clean(prog)
	switch {
	case strings.HasPrefix(clean, "/"):
		return verdict{cap: Unknown, reason: "a program outside the system directories"}, nil
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return verdict{cap: Unknown, reason: "a program outside the working directory"}, nil
	}
	v := verdict{cap: Use, reason: "runs a program from the working tree; what it does is not read"}
	if s.leftTree {
		v = verdict{cap: Unknown, reason: "a program named relative to a directory a cd moved to"}
	}
	base := family(path.Base(clean))
	h, known := lookup(base)
	if !known {
		return v, nil
	}
	hv, inner := h(s, append([]string{base}, argv[1:]...), depth)
	if !hv.quiet && s.riskier(hv, v) {
		v = hv
	}
	return v, inner
}

// riskier compares two verdicts the way riskier compares classifications.
func (s *state) riskier(a, b verdict) bool {
	oa, ob := s.c.outcomes[a.cap], s.c.outcomes[b.cap]
	if oa != ob {
		return oa > ob
	}
	return a.cap > b.cap
}

// progLabel names a program for a person, without the run-time marker.
func progLabel(p string) string { return strings.ReplaceAll(p, dynMark, "") }

// metadataOnly() programs look at a file's name or attributes, not its
// contents, so naming a secret file does not read it.
var metadataOnly = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"echo": true, "printf": true, "ls": true, "stat": true, "test": true, "[": true,
		"file": true, "touch": true, "mkdir": true, "which": true, "du": true, "basename": true,
		"dirname": true, "realpath": true, "readlink": true, "chmod": true, "type": true,
	}
})

// screenArgs raises a verdict to credential when the command names a
// secret file as an argument. Wrappers are left alone: what they run is
// screened on its own.
func screenArgs(name string, argv []string, v verdict) verdict {
	if v.quiet || v.cap >= Credential || metadataOnly()[name] {
		return v
	}
	for _, a := range argv[1:] {
		if val, ok := strings.CutPrefix(a, "--"); ok {
			if _, after, found := strings.Cut(val, "="); found {
				a = after
			}
		}
		if credentialPath(strings.TrimPrefix(a, "@")) { // curl -d @file
			return verdict{cap: Credential, reason: "reads a secret: " + progLabel(a)}
		}
	}
	return v
}

// run classifies argv as a command another command runs.
func (s *state) run(argv []string, depth int) []Classification {
	if len(argv) == 0 {
		return nil
	}
	return []Classification{s.argv(argv, depth+1)}
}
