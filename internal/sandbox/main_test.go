package sandbox

import (
	"fmt"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/run"
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
// and bwrap's exec shim: a confining Local re-executes the running binary.
// It dispatches as ringfence.MaybeInternal does (this package cannot
// import the root, which is built on it).
func TestMain(m *testing.M) {
	run.Dispatch()
	if len(os.Args) >= 2 {
		switch os.Args[1] {
		case initproc.Arg:
			initproc.Main()
			os.Exit(125) // unreachable: Main exits
		case bwrap.ShimArg:
			os.Exit(bwrap.Shim(os.Args[2:]))
		}
	}
	if addr := os.Getenv(dialEnv); addr != "" { // a real Go program's network errors
		os.Exit(dialMain(addr))
	}
	os.Exit(m.Run())
}
