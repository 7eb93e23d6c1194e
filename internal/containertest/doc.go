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
// Only test files live here. The probe is built from testdata/attack.
package containertest
