// Package domaintest is the domains network's test suite, shared by the
// backends that run it (linux, bwrap): a "test internet" made of network
// namespaces (Shared), the real clients, the attack table, the no-upstream
// attacks (run as root and as an unprivileged user) and the benchmark,
// each taking the backend to confine with. A backend's test package calls
// them from its own tests and Close from its TestMain.
package domaintest
