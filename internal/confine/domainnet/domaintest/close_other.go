//go:build !linux

package domaintest

// Close has nothing to remove off Linux: no test internet is ever made
// there (the domains network needs Linux network namespaces). It exists so
// the backends' TestMain, which build everywhere, can call it.
func Close() {}
