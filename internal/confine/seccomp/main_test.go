package seccomp

import (
	"fmt"
	"os"
	"testing"

	rfentry "github.com/ringfence/ringfence/internal/entry"
)

// helperEnv names the helper a re-executed test binary should act as.
// Filters are irreversible, so every Install happens in such a child.
const helperEnv = "RINGFENCE_SECCOMP_HELPER"

var helpers = map[string]func() int{}

func TestMain(m *testing.M) {
	rfentry.Role(helperEnv, func(name string) int {
		h, ok := helpers[name]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
			return 100
		}
		return h()
	})
	rfentry.Tests(m)
}
