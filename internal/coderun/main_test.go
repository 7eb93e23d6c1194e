package coderun

import (
	"testing"

	"github.com/ringfence/ringfence/internal/entry"
)

// TestMain dispatches the re-executed entry points (the sandbox init, the
// subreaper) a confining Local starts.
func TestMain(m *testing.M) { entry.Tests(m) }
