// Package homestate keeps ringfence's per-workspace home layers: the
// overlay upper and work directories that take a confined command's writes
// under the user's home, and the cache directory the landlock backend
// points toolchain caches at.
//
// Layout: <state>/home/<hash of the workspace root>/{upper,work,cache},
// <state> being $XDG_STATE_HOME/ringfence (default ~/.local/state/ringfence).
// Every directory is made 0700 and must be owned by the caller and not be
// a link: a state directory another user could write would let them plant
// files every later run of that workspace sees in its home.
//
// Threat model. The layer is per workspace, so a run of one workspace
// never sees another's writes; it persists, so toolchain caches are warm
// on the next run — and so is anything a run planted in its own layer (a
// ~/.bashrc there is sourced by the next confined shell of the same
// workspace, never by the host's). Backends mask <state> in the view, so no
// command reaches any layer except through its own overlay. `ringfence
// cache clear` drops a workspace's layer, or all of them.
//
// Durability. The overlay is mounted volatile (initproc.newOverlay): its
// writes are never synced, so a run's end does not sync the host's
// filesystem; fsync under home does not reach the disk, and reports any
// write error of the upper filesystem since the mount. A host that goes
// down mid-run may leave torn copies in upper; the run directory it left
// (from another boot: NewRunWork, each records its boot id) makes the
// next run reset the layer.
//
// Sharing. A policy may share a cache directory with the host (a write
// layer: writes there reach the real home), never a directory whose
// content is executed or sourced (SharedRefused).
package homestate
