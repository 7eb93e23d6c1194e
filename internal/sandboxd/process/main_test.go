package process

import (
	"testing"

	rfentry "github.com/ringfence/ringfence/internal/entry"
)

// TestMain lets the test binary act as the sandbox's init (the linux
// backend re-executes the running binary).
func TestMain(m *testing.M) { rfentry.Tests(m) }
