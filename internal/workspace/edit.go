package workspace

import (
	"strings"

	"github.com/ringfence/ringfence/outcome"
)

// The pattern name used in edit_file's outcomes. The model's old_string is
// never echoed: it is file contents, or meant to be.
const oldStringArg = "old_string"

// EditFile replaces old with new in one file, exactly (no pattern, no
// whitespace folding), atomically like WriteFile. old must occur once, or
// replaceAll must be set: a missing old is no-matches (Pattern
// "old_string"); an ambiguous one is invalid-arguments with the count in
// Observed, so the model can add context or ask for every occurrence.
func (w *Workspace) EditFile(path, old, new string, replaceAll bool) (WriteResult, error) {
	rel, err := w.clean(path)
	if err != nil {
		return WriteResult{}, err
	}
	if err := w.checkEditArgs(rel, old, new); err != nil {
		return WriteResult{}, err
	}
	t, err := w.writeTarget(rel, rel, false, 0)
	if err != nil {
		return WriteResult{}, err
	}
	defer t.close()
	data, err := w.readTarget(t)
	if err != nil {
		return WriteResult{}, err
	}
	text := string(data)
	n := strings.Count(text, old)
	switch {
	case n == 0:
		return WriteResult{}, fail(outcome.Outcome{Kind: outcome.NoMatches, Path: w.model(rel), Pattern: oldStringArg, Scope: w.model(rel)})
	case n > 1 && !replaceAll:
		return WriteResult{}, fail(outcome.Outcome{Kind: outcome.InvalidArguments, Path: w.model(rel), Pattern: oldStringArg,
			Observed: int64(n), Detail: "old_string occurs more than once; add surrounding text or set replace_all"})
	}
	if !replaceAll {
		n = 1
	}
	out := strings.Replace(text, old, new, n)
	if err := w.replace(t, []byte(out)); err != nil {
		return WriteResult{}, err
	}
	return WriteResult{Path: w.model(rel), Bytes: int64(len(out)), Replacements: n}, nil
}

func (w *Workspace) checkEditArgs(rel, old, new string) error {
	var detail string
	switch {
	case old == "":
		detail = "old_string is empty"
	case old == new:
		detail = "old_string and new_string are the same"
	default:
		return nil
	}
	return fail(outcome.Outcome{Kind: outcome.InvalidArguments, Path: w.model(rel), Detail: detail})
}

// readTarget reads the file writeTarget chose, through its parent, and
// refuses it if the name now holds another inode.
func (w *Workspace) readTarget(t target) ([]byte, error) {
	fd, err := sysOpenChild(t.dirfd, t.base())
	if err != nil {
		return nil, w.raceOr(t.shown, err)
	}
	defer sysClose(fd)
	st, err := sysFstat(fd)
	if err != nil || st.ino != t.st.ino || st.dev != t.st.dev {
		return nil, fail(ioFailure(w.model(t.shown), changed))
	}
	f := opened{fd: fd, st: st, rel: t.shown, real: t.real}
	data, err := w.readBounded(f, w.opts.MaxEditBytes)
	if o, ok := outcome.Of(err); ok && o.Kind == outcome.OverBudget {
		o.Bound = "maxEditBytes"
		return nil, fail(o)
	}
	return data, err
}
