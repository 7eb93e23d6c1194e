package outcome

// The public result of a command (ringfence.ExecResult) carries two kinds:
// Kind, the seven-way ExecKind (what the CLI maps to its exit status, what
// a caller switches on), and Outcome.Kind, the model-facing situation. The
// first is a pure function of the second — ExecKindOf — and the pipeline
// sets it only through that function, so the two can never disagree.
// The converse is not a function: command-failure is two situations
// (not-found: the program was missing; nonzero-exit: it ran, or could not
// be executed, and failed), which is why the result keeps both.

// ExecKinds are every exec kind, in the order of their constants.
func ExecKinds() []ExecKind {
	return []ExecKind{ExecSuccess, ExecDenied, ExecCommandFailure, ExecRunnerFailure,
		ExecTimedOut, ExecAborted, ExecOverBudget}
}

// Known reports whether k is one of the seven exec kinds (a kind read from
// the wire or a file is believed only then).
func (k ExecKind) Known() bool {
	_, ok := situations[k]
	return ok
}

// situations are, per exec kind, the model-facing kinds FromExec gives it
// (its first the one FromExec gives for a plain run of that kind).
var situations = map[ExecKind][]Kind{
	ExecSuccess:        {OK},
	ExecDenied:         {SandboxViolation},
	ExecCommandFailure: {NonzeroExit, NotFound},
	ExecRunnerFailure:  {RunnerFailure},
	ExecTimedOut:       {TimedOut},
	ExecAborted:        {Aborted},
	ExecOverBudget:     {OverBudget},
}

// ExecKindOf is the exec kind of a command whose outcome is of kind k. ok
// is false for a kind no finished command has (the refusals made before
// anything ran — denied-by-policy, gate-declined, path-rejected,
// unavailable … — and the file tools' own kinds): such an outcome is a
// tool's answer, never an ExecResult's.
func ExecKindOf(k Kind) (ExecKind, bool) {
	e, ok := execKindOf[k]
	return e, ok
}

// execKindOf inverts situations (each situation belongs to one exec kind:
// TestExecKindTable).
var execKindOf = func() map[Kind]ExecKind {
	m := map[Kind]ExecKind{}
	for e, ks := range situations {
		for _, k := range ks {
			m[k] = e
		}
	}
	return m
}()

// ResultKind is the exec kind a result of outcome o carries: ExecKindOf,
// and runner-failure for an outcome no command can end with (fail closed:
// a result the pipeline cannot explain is the sandbox's failure, never a
// success).
func ResultKind(o Outcome) ExecKind {
	if k, ok := ExecKindOf(o.Kind); ok {
		return k
	}
	return ExecRunnerFailure
}

// SituationOf is the model-facing kind a result of exec kind k has when
// only k is known (a remote server that sent no outcome): the first of its
// situations, runner-failure for an unknown k.
func SituationOf(k ExecKind) Kind {
	if s, ok := situations[k]; ok {
		return s[0]
	}
	return RunnerFailure
}
