package netproxy

import "testing"

// mustRules is netrule's test helper (rule_test.go) for the proxy's tests.
func mustRules(t *testing.T, allow, deny []string) Rules {
	t.Helper()
	a, err := ParseRules(allow, true)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseRules(deny, false)
	if err != nil {
		t.Fatal(err)
	}
	return Rules{Allow: a, Deny: d, Explain: map[string]string{"pastebin.com": "exfiltration risk"}}
}
