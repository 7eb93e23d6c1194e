package policy

import "testing"

// UnderNodeModules marks what the name rules leave alone (and what the
// guard may therefore not let out whole): a node_modules component
// anywhere, the last included, in a relative path or a symlink's content.
func TestUnderNodeModules(t *testing.T) {
	for rel, want := range map[string]bool{
		"node_modules": true, "node_modules/x/.git": true, "a/node_modules": true,
		"../node_modules/p": true, "/abs/node_modules/x": true,
		"": false, "deep": false, "node_modules2": false, "my_node_modules/x": false, "a/node_modulesx": false,
	} {
		if got := UnderNodeModules(rel); got != want {
			t.Errorf("UnderNodeModules(%q) = %v, want %v", rel, got, want)
		}
	}
}
