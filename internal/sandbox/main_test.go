package sandbox

import (
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/entry"
)

// dialEnv makes this test binary a small Go client: it fetches the URL
// and prints the error as Go's net/http says it.
const dialEnv = "RINGFENCE_TEST_GET"

func dialMain(url string) int {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	resp.Body.Close()
	return 0
}

// TestMain lets this test binary act as the sandbox init, the subreaper
// and bwrap's exec shim (the entry-point registry, as the binary), and as
// a small Go client for the network tests.
func TestMain(m *testing.M) {
	entry.Role(dialEnv, dialMain)
	entry.Tests(m)
}
