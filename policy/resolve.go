package policy

import (
	"slices"
	"strings"
)

// Resolve computes the policy for one call. The deployment's defaults and
// the session's mode set a ceiling; the request may narrow beneath it on
// every axis (mode, entries, network, limits) and never widen; a minted
// approval is the only thing that raises it. A single-call approval is
// spent when, and only when, Resolve succeeds with it.
func Resolve(req Request, d Defaults) (*Policy, error) {
	grant, err := req.Approval.usable(d.now(), req.SessionID)
	if err != nil {
		return nil, err
	}
	p, err := resolve(req, d, grant)
	if err != nil {
		return nil, err
	}
	if err := req.Approval.spend(); err != nil {
		return nil, err
	}
	return p, nil
}

func resolve(req Request, d Defaults, g *Grant) (*Policy, error) {
	p := &Policy{SessionID: req.SessionID, AllowAliasedWrites: d.AllowAliasedWrites}
	var err error
	if p.Root, err = absPath("root", d.Root); err != nil {
		return nil, err
	}
	if d.TempDir != "" {
		if p.TempDir, err = absPath("temp dir", d.TempDir); err != nil {
			return nil, err
		}
	}
	if p.Cwd, err = resolveCwd(req.Cwd, p.Root); err != nil {
		return nil, err
	}
	if p.Mode, err = resolveMode(req, d.Mode, g); err != nil {
		return nil, err
	}
	if p.Network, err = resolveNetwork(req.Network, d.Network, g); err != nil {
		return nil, err
	}
	if p.Limits, err = resolveLimits(req.Limits, d.Limits); err != nil {
		return nil, err
	}
	if p.UnixSockets, err = absPaths("unix socket", d.UnixSockets); err != nil {
		return nil, err
	}
	if p.Names, err = nameProtection(d); err != nil {
		return nil, err
	}
	if err := buildLayers(p, req, d, g); err != nil {
		return nil, err
	}
	if p.Mode != WorkspaceWrite {
		p.TempDir = ""
	}
	return p, nil
}

// absPath checks that p is absolute and free of NUL, and cleans it.
func absPath(field, p string) (string, error) {
	switch {
	case p == "":
		return "", &InvalidError{Field: field, Reason: "empty"}
	case !strings.HasPrefix(p, "/"):
		return "", &InvalidError{Field: field, Value: p, Reason: "not an absolute path"}
	case strings.IndexByte(p, 0) >= 0:
		return "", &InvalidError{Field: field, Value: p, Reason: "contains NUL"}
	}
	return Clean(p), nil
}

func absPaths(field string, ps []string) ([]string, error) {
	var out []string
	for _, p := range ps {
		c, err := absPath(field, p)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// resolveCwd keeps the working directory inside the root: a cwd outside it
// is refused, so it can never become a way to name a wider boundary.
func resolveCwd(cwd, root string) (string, error) {
	if cwd == "" {
		return root, nil
	}
	c, err := absPath("cwd", cwd)
	if err != nil {
		return "", err
	}
	if !Contains(root, c) {
		return "", &InvalidError{Field: "cwd", Value: c, Reason: "outside the workspace root"}
	}
	return c, nil
}

// resolveMode: the ceiling is the lower of the deployment's and the
// session's mode; an approval's mode raises what may be asked for.
func resolveMode(req Request, def Mode, g *Grant) (Mode, error) {
	for _, m := range []*Mode{&def, req.Mode, req.SessionMode} {
		if m != nil && !m.Valid() {
			return 0, &InvalidError{Field: "mode", Value: m.String()}
		}
	}
	ceiling := def
	if req.SessionMode != nil {
		ceiling = min(ceiling, *req.SessionMode)
	}
	allowed := ceiling
	if g != nil && g.Mode != nil {
		if !g.Mode.Valid() {
			return 0, &InvalidError{Field: "approval mode", Value: g.Mode.String()}
		}
		allowed = max(allowed, *g.Mode)
	}
	asked := allowed
	if req.Mode != nil {
		asked = *req.Mode
	}
	if asked > allowed {
		return 0, &EscalationError{What: "mode " + asked.String()}
	}
	return asked, nil
}

// resolveLimits lets a request lower any limit or set one the deployment
// leaves unlimited, never raise one.
func resolveLimits(req *Limits, def Limits) (Limits, error) {
	if err := checkLimits(def); err != nil {
		return Limits{}, err
	}
	if req == nil {
		return def, nil
	}
	if err := checkLimits(*req); err != nil {
		return Limits{}, err
	}
	out := def
	var err error
	narrow := func(what string, asked, ceiling int64) int64 {
		switch {
		case asked == 0:
			return ceiling
		case ceiling != 0 && asked > ceiling:
			err = &EscalationError{What: "limit " + what}
		}
		return asked
	}
	out.WallClock = timeOf(narrow("wall_clock", int64(req.WallClock), int64(def.WallClock)))
	out.MemoryBytes = narrow("memory", req.MemoryBytes, def.MemoryBytes)
	out.Processes = int(narrow("processes", int64(req.Processes), int64(def.Processes)))
	out.CPUTime = timeOf(narrow("cpu_time", int64(req.CPUTime), int64(def.CPUTime)))
	// An unset scratch size is the backend's default, never unbounded, so
	// a request may only lower it below that default's cap.
	scratchCeiling := def.ScratchBytes
	if scratchCeiling == 0 {
		scratchCeiling = MaxDefaultScratch
	}
	out.ScratchBytes = narrow("scratch", req.ScratchBytes, scratchCeiling)
	if out.ScratchBytes == scratchCeiling && def.ScratchBytes == 0 {
		out.ScratchBytes = 0
	}
	if err != nil {
		return Limits{}, err
	}
	return out, nil
}

func checkLimits(l Limits) error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"wall_clock", int64(l.WallClock)}, {"memory", l.MemoryBytes}, {"processes", int64(l.Processes)}, {"cpu_time", int64(l.CPUTime)}, {"scratch", l.ScratchBytes}} {
		if f.v < 0 {
			return &InvalidError{Field: "limit " + f.name, Reason: "negative"}
		}
	}
	return nil
}

// checkEntries validates a list of entries and returns them cleaned.
func checkEntries(field string, es []Entry) ([]Entry, error) {
	out := slices.Clone(es)
	for i := range out {
		p, err := absPath(field, out[i].Path)
		if err != nil {
			return nil, err
		}
		if !out[i].Access.Valid() {
			return nil, &InvalidError{Field: field + " access", Value: out[i].Access.String()}
		}
		out[i].Path = p
	}
	return out, nil
}

// nameProtection checks the extra protected names: each one component.
func nameProtection(d Defaults) (NameProtection, error) {
	n := NameProtection{GitWritable: d.ProtectGit == GitWritable}
	for _, name := range d.ExtraProtectedNames {
		if !ValidProtectedName(name) {
			return n, &InvalidError{Field: "extra protected name", Value: name, Reason: "want one path component"}
		}
		n.Extra = append(n.Extra, name)
	}
	return n, nil
}
