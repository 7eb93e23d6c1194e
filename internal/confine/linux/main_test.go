package linux

import (
	"testing"

	"github.com/ringfence/ringfence/internal/confine/domainnet/domaintest"
	"github.com/ringfence/ringfence/internal/entry"
)

func TestMain(m *testing.M) { entry.Tests(m, domaintest.Close) }
