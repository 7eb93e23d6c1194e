// Package containertest runs ringfence inside a real container (podman with
// runc, a minimal root of busybox-static, the static ringfence binary and a
// small attack probe) and judges the results from the host side.
//
// It exists because the hosts that need the landlock backend most are
// containers: there, user namespaces are often refused by the runtime's
// seccomp profile, and the only walls are Landlock, seccomp and the
// init's supervisor. The tests run each attack twice — unconfined in the
// container (the control that proves the attack works there) and under
// `ringfence run` (where it must be refused) — under two profiles: the
// runtime's default and a Docker-like one that refuses every new namespace.
// They run as root and as an unprivileged user inside the container.
//
// Beyond the landlock backend: TestContainerMatrix runs every setting
// (default and no-namespaces profiles × root and nobody × a minimal root
// through a shell and as pid 1, a root holding only the binary as pid 1)
// with auto's backend — the linux backend, degraded, where namespaces are
// allowed — and checks doctor's choice and reasons, ordinary work, the
// core escapes and the steps not taken; TestHostProcInContainer attacks
// the container /proc the degraded linux backend shows; the TestPid1
// tests check ringfence as the container's pid 1 (the command runs with
// its own outcome, stops reach the tree with 128+N, orphans are reaped,
// nothing is left on the host). docs/containers.md has the resulting table.
//
// Only test files live here (and profile/, the seccomp profile the
// no-namespaces column runs under, shared with deploy/). The probe is
// built from testdata/attack.
package containertest
