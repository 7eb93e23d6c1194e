package tools

import (
	"github.com/ringfence/ringfence"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/ringfence/ringfence/execpolicy"
)

type runArgs struct {
	Command        *string  `json:"command"`
	Argv           []string `json:"argv"`
	Cwd            string   `json:"cwd"`
	TimeoutSeconds int64    `json:"timeout_seconds"`
	Stdin          *string  `json:"stdin"`
	// With the process tools (Options.Processes): run_command runs in the
	// MCP session's sandbox session; these make it return while the
	// command runs on (run_command_session.go).
	Background bool   `json:"background"`
	YieldMs    *int64 `json:"yield_ms"`
	TTY        bool   `json:"tty"`
	Rows       int64  `json:"rows"`
	Cols       int64  `json:"cols"`

	prep *prepared // filled by check: what the command is and does
}

// prepared is a run_command call read before anything runs.
type prepared struct {
	argv     []string
	cwd      string // clean relative working directory, "" for the root
	class    execpolicy.Classification
	programs []string // every program the command runs, in order, once each
	asks     []leaf   // the parts whose outcome is ask-approval
	network  bool     // a part talks to another host (network or package-install)
}

type leaf struct {
	program string
	cap     execpolicy.Capability
}

const maxArgv = 4096

func init() {
	register(func(s *Set) tool {
		return &spec[runArgs]{
			set: s, tname: "run_command", title: "Run a command",
			hints: s.commandHints(), data: dataType[ringfence.ExecResult](),
			desc: "Run a command in a sandbox over the workspace (" + s.nc.MountPath + "), with a time limit. Give either command, " +
				"a shell command line (run with `" + path.Base(s.shell[0]) + " -c`: pipes, && and redirections work), or argv, the program and its " +
				"arguments without a shell — exactly one of them. cwd is a directory relative to the workspace (default its root). " +
				"The command sees the workspace and the system read-only except where the policy makes it writable; it may not " +
				"reach the network unless the policy or a person allows it, nor see the host's processes or environment. Commands " +
				"are read before they run: some need a person's approval first, some are refused. timeout_seconds defaults to " +
				strconv.Itoa(int(s.opts.DefaultTimeout.Seconds())) + " s, at most " + strconv.Itoa(int(s.opts.MaxTimeout.Seconds())) +
				" s; on timeout every process it started is stopped. Returns the exit code, stdout and stderr (long output is cut " +
				"in the middle and says so) and what the sandbox refused, if anything." + s.runSessionDesc(),
			schema: obj(nil, s.runProps(map[string]*prop{
				"command":         str("A shell command line. Give this or argv, not both.", 1, s.opts.MaxArgBytes),
				"argv":            array("The program and its arguments, run without a shell. Give this or command, not both.", str("", 0, s.opts.MaxArgBytes), 1, maxArgv),
				"cwd":             str("The working directory: relative to the workspace, or under "+s.nc.MountPath+"; default the root.", 0, maxPathChars),
				"timeout_seconds": integer("Stop the command after this many seconds.", 1, int64(s.opts.MaxTimeout.Seconds())),
				"stdin":           str("Text given to the command's standard input.", 0, s.opts.MaxArgBytes),
			})),
			check: s.prepareRun,
			perms: s.commandPermissions,
			run:   s.runCommand,
		}
	})
}

// shellArgv is the shell a command line runs in: bash where the host has
// it (the sandbox sees the host's system directories), else sh. The path
// is absolute so that no backend (nor the unconfined runner) depends on a
// PATH lookup to find it.
func shellArgv() []string {
	for _, p := range []string{"/bin/bash", "/usr/bin/bash"} {
		if _, err := os.Stat(p); err == nil {
			return []string{p, "-c"}
		}
	}
	return []string{"/bin/sh", "-c"}
}

// prepare checks what the schema cannot (exactly one of command and argv,
// a program name, the working directory) and classifies the command.
func (s *Set) prepare(a *runArgs) error {
	p := &prepared{}
	switch {
	case (a.Command == nil) == (a.Argv == nil):
		return fail(invalid(`give exactly one of "command" and "argv"`))
	case a.Command != nil:
		p.argv = append(append([]string(nil), s.shell...), *a.Command)
	case a.Argv[0] == "":
		return fail(invalid(`"argv" must start with a program name`))
	default:
		p.argv = append([]string(nil), a.Argv...)
	}
	cwd, err := s.rel(a.Cwd, true)
	if err != nil {
		return err
	}
	p.cwd = cwd
	p.class = s.opts.Classifier.Classify(p.argv)
	p.read(p.class)
	a.prep = p
	return nil
}

// read collects the leaves of a classification: the programs, the parts
// that ask, and whether any part reaches the network.
func (p *prepared) read(c execpolicy.Classification) {
	if len(c.Parts) > 0 {
		for _, part := range c.Parts {
			p.read(part)
		}
		return
	}
	if isProgram(c.Program) && !contains(p.programs, c.Program) {
		p.programs = append(p.programs, c.Program)
	}
	if c.Outcome == execpolicy.AskApproval {
		l := leaf{c.Program, c.Capability}
		if !containsLeaf(p.asks, l) {
			p.asks = append(p.asks, l)
		}
	}
	if netCap(c.Capability) {
		p.network = true
	}
}

// isProgram tells a program from a redirection, which the classifier
// reports as a part named by its operator (">", ">>", "<").
func isProgram(name string) bool { return strings.Trim(name, "<>&|") != "" }

// netCap: network, and package-install (which fetches what it installs),
// are the capabilities an approval widens the network for.
func netCap(c execpolicy.Capability) bool {
	return c == execpolicy.Network || c == execpolicy.PackageInstall
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func containsLeaf(xs []leaf, x leaf) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// commandPermissions: shell:<program> for every program the command runs,
// then network:* when a part reaches the network.
func (s *Set) commandPermissions(a *runArgs) ([]string, error) {
	var out []string
	for _, prog := range a.prep.programs {
		out = append(out, permShell+prog)
	}
	if a.prep.network {
		out = append(out, permNet)
	}
	return out, nil
}
