// Package corpus is the "ordinary work just works" check: real projects
// built, tested and committed through `ringfence run -- …` with no extra
// flags, each compared with the same command run unconfined, and a
// snapshot proving that nothing under the user's home or outside the
// workspace changed on the host afterwards.
//
// The tests build the static ringfence binary and drive it as a user would
// (a process with a home, a PATH holding the Go toolchain, and secrets in
// its environment that must not reach the command). Only test files live
// here.
package corpus
