package seccomp

import (
	"fmt"
	"os"
	"testing"
)

// helperEnv names the helper a re-executed test binary should act as.
// Filters are irreversible, so every Install happens in such a child.
const helperEnv = "RINGFENCE_SECCOMP_HELPER"

var helpers = map[string]func() int{}

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		h, ok := helpers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
			os.Exit(100)
		}
		os.Exit(h())
	}
	os.Exit(m.Run())
}
