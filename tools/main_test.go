package tools

import (
	"testing"

	"github.com/ringfence/ringfence/internal/entry"
)

// TestMain dispatches the re-executed entry points (the sandbox init, the
// subreaper) a Local starts, as every binary that runs commands must.
func TestMain(m *testing.M) { entry.Tests(m) }
