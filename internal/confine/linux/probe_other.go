//go:build !linux

package linux

func probe() error { return unavailable("Linux namespaces exist on Linux only") }

func quickCheck() error { return probe() }
