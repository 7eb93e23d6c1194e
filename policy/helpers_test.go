package policy

import (
	"errors"
	"io/fs"
	"testing"
)

func wsDefaults() Defaults {
	return Defaults{Mode: WorkspaceWrite, Root: "/repo", TempDir: "/tmp/rf", Baseline: Read}
}

func modeP(m Mode) *Mode { return &m }

func mustResolve(t *testing.T, req Request, d Defaults) *Policy {
	t.Helper()
	p, err := Resolve(req, d)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return p
}

func wantAccess(t *testing.T, p *Policy, want map[string]Access) {
	t.Helper()
	for path, a := range want {
		if got := p.AccessAt(path); got != a {
			t.Errorf("AccessAt(%s) = %s, want %s\nlayers: %v", path, got, a, p.Layers)
		}
	}
}

func wantEscalation(t *testing.T, err error, what, path string) {
	t.Helper()
	var e *EscalationError
	if !errors.As(err, &e) || e.What != what || e.Path != path || !errors.Is(err, ErrPolicy) {
		t.Fatalf("error %v, want EscalationError{%q, %q}", err, what, path)
	}
}

func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	var e *InvalidError
	if !errors.As(err, &e) || e.Field != field || !errors.Is(err, ErrPolicy) {
		t.Fatalf("error %v, want InvalidError for %q", err, field)
	}
}

// fakeFS is an in-memory ReadFile: name → contents; a name mapped to ""
// with dirs is a directory (EISDIR-like), anything absent does not exist.
type fakeFS map[string]string

func (f fakeFS) ReadFile(name string) ([]byte, error) {
	s, ok := f[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	if s == "<dir>" {
		return nil, errors.New("is a directory")
	}
	return []byte(s), nil
}
