package modelpath

import (
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/pathrule"
)

// MaxShown bounds a refused path echoed in an outcome.
const MaxShown = 512

// Mount is where the model sees the workspace root; "" is
// outcome.DefaultMountPath.
type Mount string

func (m Mount) path() string {
	if m == "" {
		return outcome.DefaultMountPath
	}
	return string(m)
}

// Strip makes a path under the mount path relative: "/workspace/src/a.go"
// → "src/a.go", "/workspace" and "/workspace/" → ".". Any other path is
// returned as it is, for pathrule to judge.
func (m Mount) Strip(p string) string {
	mp := m.path()
	switch {
	case p == mp || p == mp+"/":
		return "."
	case strings.HasPrefix(p, mp+"/"):
		return strings.TrimLeft(p[len(mp):], "/")
	}
	return p
}

// Clean is the clean relative path p names, or a path-rejected
// outcome.Error (read it with outcome.Of).
func (m Mount) Clean(p string) (string, error) {
	rel, err := pathrule.Clean(m.Strip(p))
	if err != nil {
		return "", Refused(p, err)
	}
	return rel, nil
}

// Scope is Clean for the base of a walk, where the workspace itself ("",
// ".", the mount path) is a valid answer: "".
func (m Mount) Scope(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	rel, err := m.Clean(p)
	if o, ok := outcome.Of(err); ok && o.Kind == outcome.PathRejected &&
		(o.Reason == string(pathrule.Dot) || o.Reason == string(pathrule.Empty)) {
		return "", nil
	}
	return rel, err
}

// Model shows a clean relative path under the mount path ("" is the mount
// path itself).
func (m Mount) Model(rel string) string {
	if rel == "" {
		return m.path()
	}
	return m.path() + "/" + rel
}

// Refused is the path-rejected refusal of p for err: pathrule's reason
// when err is a pathrule.Error, "invalid" otherwise.
func Refused(p string, err error) error {
	return Reject(p, reasonOf(err))
}

// Reject is the path-rejected refusal of p for reason.
func Reject(p, reason string) error {
	return &outcome.Error{Op: "path", Outcome: outcome.Outcome{Kind: outcome.PathRejected, Path: Shown(p), Reason: reason},
		Err: pathrule.ErrPathRefused}
}

func reasonOf(err error) string {
	var pe *pathrule.Error
	if errors.As(err, &pe) {
		return string(pe.Reason)
	}
	return "invalid"
}

// Shown bounds a model-supplied path before it goes into an outcome, cut
// at a rune boundary so that valid UTF-8 stays valid.
func Shown(p string) string {
	if len(p) <= MaxShown {
		return p
	}
	cut := MaxShown
	for cut > 0 && cut > MaxShown-utf8.UTFMax && !utf8.RuneStart(p[cut]) {
		cut--
	}
	return p[:cut] + "…"
}
