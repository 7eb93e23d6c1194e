package policyfile

import (
	"errors"
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// fuzzParse is the property for both formats: Parse never panics, every
// error is a *Error wrapping policy.ErrPolicy, and a parsed file either
// yields defaults that resolve or an ErrPolicy.
func fuzzParse(t *testing.T, data []byte, format string) {
	f, err := Parse(data, format)
	if err != nil {
		var fe *Error
		if !errors.As(err, &fe) || !errors.Is(err, policy.ErrPolicy) {
			t.Fatalf("error %v (%T) is not a *Error/ErrPolicy", err, err)
		}
		if fe.Line < 0 || fe.Line > len(data)+1 {
			t.Fatalf("line %d out of range", fe.Line)
		}
		return
	}
	f.Home = "/home/u"
	d, err := f.Defaults("/repo")
	if err != nil {
		if !errors.Is(err, policy.ErrPolicy) {
			t.Fatalf("Defaults error %v is not ErrPolicy", err)
		}
		return
	}
	if _, err := policy.Resolve(policy.Request{}, d); err != nil {
		t.Fatalf("checked defaults do not resolve: %v", err)
	}
}

func FuzzParseTOML(f *testing.F) {
	f.Add([]byte(sampleTOML))
	f.Add([]byte(InitTemplate()))
	f.Add([]byte("a = \"\"\"x\n\"\"\"\nb = '''y'''\n[t]\nc = [ {d = 1}, [2, 3] ] # c\n"))
	f.Add([]byte("[[entry]]\npath = '/a'\n[entry.x]\ny = 1\n[[entry]]\n\"q.k\" = 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, "toml") })
}

func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(sampleJSON))
	f.Add([]byte(`{"entry": [{"path": "~/x", "access": "deny"}], "limits": {"memory": 1024}}`))
	f.Add([]byte(`{"mode": "read-only", "mode": 1}`))
	f.Add([]byte("{\n\"exec\": {\"rules\": [{\"prefix\": [\"a\"], \"notMatch\": [[]]}]}}"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzParse(t, data, "json") })
}

// TestLocateTOMLNeverStalls runs the lenient line finder over text the
// parser would refuse, which it must survive (it only runs after a
// successful parse, but a bug there must not hang).
func TestLocateTOMLNeverStalls(t *testing.T) {
	for _, s := range []string{"[", "[[", "a", "a =", "a = [", "a = {", "a = \"\"\"", "'", "\"", "a = '''", "\x00", "a = [1,,", "{}", "a.=1", "a = {b = [}", "a = \"\\"} {
		locateTOML(s)
	}
}
