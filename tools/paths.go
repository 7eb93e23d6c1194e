package tools

import (
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ringfence/ringfence/internal/modelpath"
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

// mount is the model-path reading the workspace and the facade use too
// (internal/modelpath): mount stripping, cleaning, the bound, the refusal.
func (s *Set) mount() modelpath.Mount { return modelpath.Mount(s.nc.MountPath) }

// rel applies the model-path rule: the clean relative path, or a
// path-rejected error naming the pathrule reason. scope accepts the
// workspace itself ("" , ".", the mount path) as "", for directory walks.
func (s *Set) rel(p string, scope bool) (string, error) {
	if scope {
		return s.mount().Scope(p)
	}
	return s.mount().Clean(p)
}

// model shows a clean relative path under the mount path.
func (s *Set) model(rel string) string { return s.mount().Model(rel) }

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
	pat := s.mount().Strip(pattern)
	if !doublestar.ValidatePattern(pat) || pat == "" {
		return "", fail(outcome.Outcome{Kind: outcome.InvalidPattern, Pattern: modelpath.Shown(pattern), Detail: "not a valid glob pattern"})
	}
	if strings.HasPrefix(pat, "/") {
		return "", modelpath.Reject(pattern, string(pathrule.Absolute))
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
