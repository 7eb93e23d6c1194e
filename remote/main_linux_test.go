package remote

import (
	"fmt"
	"os"
	"testing"
)

// TestMain builds the ringfence binary the tests serve with.
func TestMain(m *testing.M) {
	if bin := os.Getenv(serveBinEnv); bin != "" { // the non-root rerun: built already
		serveBin = bin
		os.Exit(m.Run())
	}
	bin, cleanup, err := buildServe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	serveBin = bin
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// serveBinEnv names a ringfence binary built already (the non-root rerun
// has no Go toolchain or cache of its own).
const serveBinEnv = "RINGFENCE_REMOTE_TEST_SERVE_BIN"
