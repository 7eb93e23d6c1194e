// Package viewplan computes, once and without touching the host, the view
// a resolved policy asks every backend to build: which paths are writable
// roots, which layers take write away inside them (carve-outs), which hide
// or reopen reading, which directories must be pinned, which protected
// paths the seccomp guard holds by name and which by absolute path, and
// which carve-outs a backend must treat as missing. Every entry carries
// the layer that caused it (Step: the policy.Layer, its index, and what
// the layers before it gave its path).
//
// The backends translate this plan into their mechanism and derive
// nothing of their own: internal/confine/linux into initproc mount ops,
// Landlock and seccomp options; internal/confine/landlock into Landlock
// rules and the guard's lists; internal/confine/bwrap into bwrap
// arguments. Before the plan each of them computed "access before layer
// i", the carve-outs and the pins itself (three copies); their equality
// goldens (plan_golden_test.go in each, over random policies from
// plantest) were recorded from those derivations and hold the
// translations to them.
//
// # The parts
//
//   - Steps: the policy's layers in applied order (broadest first), each
//     with Before (the access the baseline and earlier layers give its
//     path), BeforeDepth (the deepest such layer, -1: the baseline) and
//     Enclosing (the deepest other layer around it). A step whose access
//     equals Before changes nothing and needs no mount or rule.
//   - Shown: Steps plus the workspace root, when no layer names it and
//     the policy does not deny it. A view with fresh mounts of its own (a
//     private /tmp, the workspace at a mount path) would otherwise hide a
//     read-only workspace; the added step grants what the root has, so
//     access is unchanged.
//   - Roots and CarveOuts: policy.WritableRoots, as steps. Hidden and
//     Reopened: the steps that turn reading off (policy.UnreadablePaths)
//     and on (under an allow-list, every grant).
//   - Pins: every directory strictly between a carve-out and the deepest
//     root holding it, outermost first. A mountpoint cannot be renamed or
//     removed (EBUSY), so the directory holding a protected path cannot be
//     moved aside and replaced (mv .git .git2 && mkdir -p .git/hooks).
//   - GuardNames and Protected: generated protected paths the guard holds
//     by name (policy.ProtectedByName; a mount would refuse even an empty
//     .git/hooks, and so `git init`) and those it must hold by absolute
//     path (an extra subpath no name rule covers).
//   - Explicit and DeniedInside: the split a backend without mounts needs
//     (Landlock cannot subtract): carve-outs a person asked for, read-only
//     apart from denied, and denies nested in a read-only carve-out.
//   - Within: the carve-outs directly under a writable layer that are
//     missing on the host (existence is injected): no mount can cover a
//     path that does not exist, so a backend expands around it or guards
//     it.
//
// # What is proved
//
// FuzzPlanMatchesAccessAt: for random resolved policies (plantest), the
// plan grants at every probed path exactly policy.AccessAt — read off its
// roots, carve-outs, hidden and reopened steps, and off its changing steps
// in both layer lists — and its parts agree with policy.WritableRoots,
// policy.UnreadablePaths and ProtectedByName; every pin is a writable
// directory strictly inside its root on the way to a carve-out.
// FuzzResolvedPlanMatchesAccessAt and TestResolvedPlans hold the same
// over policies policy.Resolve made from adversarial entries
// (plantest.Resolved: "/", trailing slashes, dot segments, a request
// restricting the root, deny inside read inside write inside deny); they
// found Resolve keeping a shadowed write layer at the root beside its
// read restriction. The linux backend's translation is checked mount by
// mount against AccessAt (TestPlanSimulatedMatchesAccessAt). TestNew and
// the other table tests pin the parts for hand-written policies.
//
// # Limits
//
// The plan is the policy's view only. What each backend adds — fresh
// /proc, /dev and /tmp, the home overlay, the system set under an
// allow-list, the workspace's mount path — and what depends on the host
// (which paths exist, the directory listings Landlock and bwrap expand a
// root around: initproc.ExpandCarved, bwrap's expand) stay with the
// backend. Layer paths are cleaned (policy.Clean); Resolve makes them
// clean already, so that changes nothing for a resolved policy. New is
// quadratic in the layers, like policy.WritableRoots; a backend computes
// it once per run (bwrap's exported PinDirs and PinRoot compute it again
// for the provider).
package viewplan
