package tools

import (
	"errors"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
)

// The permission prefixes a call declares.
const (
	permRead  = "filesystem:read "
	permWrite = "filesystem:write "
	permShell = "shell:"
	permNet   = "network:*"
)

// stripMount makes a path under the mount path relative, as the workspace
// does: "/workspace/src/a.go" → "src/a.go", "/workspace" → ".".
func (s *Set) stripMount(p string) string {
	m := s.nc.MountPath
	switch {
	case p == m || p == m+"/":
		return "."
	case strings.HasPrefix(p, m+"/"):
		return strings.TrimLeft(p[len(m):], "/")
	}
	return p
}

// rel applies the model-path rule: the clean relative path, or a
// path-rejected error naming the pathrule reason. scope accepts the
// workspace itself ("" , ".", the mount path) as "", for directory walks.
func (s *Set) rel(p string, scope bool) (string, error) {
	if scope && p == "" {
		return "", nil
	}
	r, err := pathrule.Clean(s.stripMount(p))
	if err == nil {
		return r, nil
	}
	reason := "invalid"
	var pe *pathrule.Error
	if errors.As(err, &pe) {
		reason = string(pe.Reason)
	}
	if scope && (reason == string(pathrule.Dot) || reason == string(pathrule.Empty)) {
		return "", nil
	}
	return "", fail(outcome.Outcome{Kind: outcome.PathRejected, Path: bounded(p), Reason: reason})
}

// model shows a clean relative path under the mount path.
func (s *Set) model(rel string) string {
	if rel == "" {
		return s.nc.MountPath
	}
	return s.nc.MountPath + "/" + rel
}

// declare is the permission of one path argument.
func (s *Set) declare(prefix, p string, scope bool) ([]string, error) {
	r, err := s.rel(p, scope)
	if err != nil {
		return nil, err
	}
	return []string{prefix + s.model(r)}, nil
}

// globScope is the directory glob_files walks: its base, narrowed by the
// pattern's fixed leading directories (as the workspace narrows it).
func (s *Set) globScope(pattern, base string) (string, error) {
	pat := s.stripMount(pattern)
	if !doublestar.ValidatePattern(pat) || pat == "" {
		return "", fail(outcome.Outcome{Kind: outcome.InvalidPattern, Pattern: bounded(pattern), Detail: "not a valid glob pattern"})
	}
	if strings.HasPrefix(pat, "/") {
		return "", fail(outcome.Outcome{Kind: outcome.PathRejected, Path: bounded(pattern), Reason: string(pathrule.Absolute)})
	}
	b, err := s.rel(base, true)
	if err != nil {
		return "", err
	}
	prefix, _ := doublestar.SplitPattern(pat)
	if prefix == "." || prefix == "" {
		return b, nil
	}
	joined := prefix
	if b != "" {
		joined = b + "/" + prefix
	}
	return s.rel(joined, true)
}

// bounded cuts a model-supplied string before it goes into an outcome.
func bounded(p string) string {
	const max = 512
	if len(p) > max {
		return p[:max] + "…"
	}
	return p
}
