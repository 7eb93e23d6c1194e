// Package profile makes the container seccomp profile the container tests
// (internal/containertest, deploy/) run the no-namespaces column under:
// the runtime's default profile changed the way Docker's default (and
// Kubernetes' RuntimeDefault without CAP_SYS_ADMIN) is, so no new
// namespace can be made — unshare and setns refused with EPERM, clone
// allowed only without a CLONE_NEW* flag, clone3 answered ENOSYS so libc
// falls back to clone. ringfence must then pick the landlock backend.
package profile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
)

// Base is the container runtime's default seccomp profile.
const Base = "/usr/share/containers/seccomp.json"

// cloneNewMask is CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET.
const cloneNewMask = 0x7E020000

// NoNamespaces is base (an OCI seccomp profile in JSON) with the namespace
// calls taken out of every rule that allowed them and the refusing rules
// added. A profile that is not the expected shape is an error.
func NoNamespaces(base []byte) ([]byte, error) {
	var prof map[string]any
	if err := json.Unmarshal(base, &prof); err != nil {
		return nil, err
	}
	list, ok := prof["syscalls"].([]any)
	if !ok {
		return nil, fmt.Errorf("profile: no syscalls list")
	}
	banned := map[string]bool{"unshare": true, "setns": true, "clone": true, "clone3": true}
	var rules []any
	for _, r := range list {
		rule, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("profile: a rule is not an object")
		}
		names, _ := rule["names"].([]any)
		var kept []any
		for _, n := range names {
			if s, ok := n.(string); !ok || !banned[s] {
				kept = append(kept, n)
			}
		}
		if len(kept) > 0 {
			rule["names"] = kept
			rules = append(rules, rule)
		}
	}
	rules = append(rules,
		map[string]any{"names": []string{"clone"}, "action": "SCMP_ACT_ALLOW",
			"args": []map[string]any{{"index": 0, "value": cloneNewMask, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}}},
		map[string]any{"names": []string{"clone3"}, "action": "SCMP_ACT_ERRNO", "errnoRet": 38},
		map[string]any{"names": []string{"unshare", "setns"}, "action": "SCMP_ACT_ERRNO", "errnoRet": 1},
	)
	prof["syscalls"] = rules
	return json.Marshal(prof)
}

// NoNamespacesFile writes NoNamespaces of this host's Base into a test
// directory and returns its path; without Base the test skips (fails
// under RINGFENCE_REQUIRE_ALL=1).
func NoNamespacesFile(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(Base)
	testenv.Need(t, "the container runtime's seccomp profile "+Base, err)
	out, err := NoNamespaces(raw)
	if err != nil {
		t.Fatalf("%s: %v", Base, err)
	}
	file := filepath.Join(t.TempDir(), "no-namespaces.json")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
