//go:build !linux

package linux

func probe() (Degraded, error) {
	return Degraded{}, unavailable("Linux namespaces exist on Linux only")
}

func quickCheck() error { _, err := probe(); return err }
