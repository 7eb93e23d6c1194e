package remote

import (
	"fmt"
	"os"
	"testing"
)

// TestMain builds the ringfence binary the tests serve with.
func TestMain(m *testing.M) {
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
