package coderun

import (
	"context"
	"path"
	"path/filepath"

	"github.com/ringfence/ringfence/internal/sandbox"
	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
	"github.com/ringfence/ringfence/policy"
)

// Sandbox is what the code runner needs of a sandbox: a *sandbox.Local
// (the root's ringfence.Local) satisfies it, and cmd/ringfence or package
// tools hands one in. Declared here so the runner depends on these few
// methods, never on the public facade above it.
type Sandbox interface {
	// Workspace is the policy-fenced file layer the inputs are read from
	// and the artifacts saved to.
	Workspace() *workspace.Workspace
	// ScratchDir is the private temp dir the call directories live in.
	ScratchDir() string
	// Policy resolves a request as a run would (to refuse early).
	Policy(req policy.Request) (*policy.Policy, error)
	// LookPath finds an interpreter on the commands' PATH.
	LookPath(name string) (string, bool)
	// ExecRequest runs in the workspace; ExecScratch in a call directory.
	ExecRequest(ctx context.Context, argv []string, opts sandbox.ExecOptions, req policy.Request) (*sandbox.ExecResult, error)
	ExecScratch(ctx context.Context, argv []string, dir string, opts sandbox.ExecOptions, req policy.Request) (*sandbox.ExecResult, error)
}

// Run runs req's code in sb. An error means nothing ran: a refusal before
// the run (*outcome.Error: unknown language, missing interpreter, invalid or
// over-budget inputs, an input the workspace refused), or the sandbox's
// own refusal to start (policy.ErrPolicy, policy.ErrUnavailable, as from
// ExecRequest). Everything that happened once the runner started is in
// the result, outputs included.
func Run(ctx context.Context, sb Sandbox, req Request) (*Result, error) {
	req = req.withDefaults()
	lang, interp, err := Interpreter(sb, req.Language)
	if err != nil {
		return nil, err
	}
	save, err := pathrule.Clean(req.SaveLargeTo)
	if err != nil {
		return nil, invalid("the directory for large outputs is not a valid workspace path")
	}
	if err := scratchUsable(sb, req.Policy); err != nil {
		return nil, err
	}
	names, err := CheckNames(req.Inputs, req.MaxInputs)
	if err != nil {
		return nil, err
	}
	files, err := gather(sb.Workspace(), req.Inputs, names, req.MaxInputBytes)
	if err != nil {
		return nil, err
	}
	manifest, mjson := buildManifest(files)
	cd, err := newCallDir(sb.ScratchDir())
	if err != nil {
		return nil, refuse(outcome.Outcome{Kind: outcome.IOFailure, Detail: "the call directory could not be made"})
	}
	defer cd.remove()
	if err := cd.stage(files, mjson); err != nil {
		return nil, refuse(outcome.Outcome{Kind: outcome.IOFailure, Detail: "the inputs could not be staged"})
	}
	if err := cd.create(lang.Script, []byte(req.Code)); err != nil {
		return nil, refuse(outcome.Outcome{Kind: outcome.IOFailure, Detail: "the code could not be staged"})
	}
	res, err := execute(ctx, sb, req, lang, interp, cd)
	if err != nil {
		return nil, err
	}
	out := &Result{Exec: res, Interpreter: lang.Program, Inputs: manifest.Inputs}
	if res.Kind == outcome.ExecRunnerFailure {
		return out, nil // the command never ran: outputs not collected (nil)
	}
	c := &collector{req: req, ws: sb.Workspace(), saveDir: path.Join(save, callID(cd.path))}
	out.Artifacts = c.collect(cd.root)
	out.ArtifactsCollected, out.ArtifactsCut, out.OmittedArtifacts = true, c.cut, c.omitted
	return out, nil
}

// scratchUsable refuses, before anything is staged, a policy under which
// the call directory would be neither writable nor even visible to the
// command: read-only mode grants no private temp dir, and the backends
// show the host's temp area only where a layer binds it.
func scratchUsable(sb Sandbox, req policy.Request) error {
	req.Approval = nil // resolving here must not spend a single-call approval
	pol, err := sb.Policy(req)
	if err != nil {
		return err
	}
	if pol.Confining() && pol.TempDir == "" {
		return refuse(outcome.Outcome{Kind: outcome.Unavailable, Detail: "running code needs the workspace-write mode, and this session is read-only"})
	}
	return nil
}

// Interpreter finds the program of a language on the command PATH.
func Interpreter(sb Sandbox, language string) (Language, string, error) {
	lang, ok := Languages[language]
	if !ok {
		return Language{}, "", invalid("unknown language; use one of python, javascript, bash, sh")
	}
	interp, ok := sb.LookPath(lang.Program)
	if !ok {
		return lang, "", refuse(outcome.Outcome{Kind: outcome.MissingProgram, Program: lang.Program})
	}
	return lang, interp, nil
}

// execute starts the interpreter on the code file: in the call directory,
// or in the workspace root with the file named by its absolute path. The
// inputs and the code are restricted read-only for the command (a
// restriction only narrows, so no approval is needed).
func execute(ctx context.Context, sb Sandbox, req Request, lang Language, interp string, cd *callDir) (*sandbox.ExecResult, error) {
	preq := req.Policy
	preq.Entries = append(append([]policy.Entry(nil), preq.Entries...),
		policy.Entry{Path: cd.host(InputsDir), Access: policy.Read},
		policy.Entry{Path: cd.host(lang.Script), Access: policy.Read})
	env := map[string]string{}
	for k, v := range req.Env {
		env[k] = v
	}
	env[EnvOutputDir], env[EnvInputDir] = cd.host(OutputsDir), cd.host(InputsDir)
	opts := sandbox.ExecOptions{Env: env, Timeout: req.Timeout}
	if req.InWorkspace {
		return sb.ExecRequest(ctx, []string{interp, cd.host(lang.Script)}, opts, preq)
	}
	return sb.ExecScratch(ctx, []string{interp, lang.Script}, cd.path, opts, preq)
}

// callID names a call's directory of saved artifacts: the random name of
// its call directory, so two calls never save over each other.
func callID(dir string) string { return filepath.Base(dir) }
