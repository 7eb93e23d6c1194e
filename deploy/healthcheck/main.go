// Command healthcheck is the readiness probe of the ringfence image: it
// asks ringfence serve's REST port, on the pod's own loopback, for
// /v1/health and exits 0 only on 200. The image has no shell or curl, and
// the server listens on loopback only, where a kubelet httpGet probe
// (which dials the pod IP) cannot reach it; an exec probe runs inside the
// pod's network namespace and can.
//
//	healthcheck [URL]   (default http://127.0.0.1:8080/v1/health)
package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	target := "http://127.0.0.1:8080/v1/health"
	if len(args) > 1 {
		fmt.Fprintln(stderr, "usage: healthcheck [URL]")
		return 2
	}
	if len(args) == 1 {
		target = args[0]
	}
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		fmt.Fprintf(stderr, "healthcheck: %q is not an http URL\n", target)
		return 2
	}
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(u.String())
	if err != nil {
		fmt.Fprintln(stderr, "healthcheck:", err)
		return 1
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(stderr, "healthcheck:", resp.Status)
		return 1
	}
	return 0
}
