package bwrap

import (
	"strconv"

	"github.com/ringfence/ringfence/internal/confine/viewplan"
	"github.com/ringfence/ringfence/policy"
)

// PinDirs are the directories to pin for p, outermost first: the view
// plan's pins (viewplan.Plan.Pins), every directory strictly between a
// writable root and a carve-out in it (a read-only or protected path, or a
// denied one). A mountpoint can be neither renamed nor removed (EBUSY), so
// once each of them is one, the directory holding a carve-out cannot be
// moved aside and replaced by a fresh one without it (mv .git .git.old &&
// mkdir .git && echo … > .git/config): the carve-out's own mount only
// holds the carve-out, and it moves along with a renamed parent. The
// native backend pins the same directories.
//
// The provider opens each one beneath its root without following links
// (see openPins) and hands bwrap the descriptor (--bind-fd), so a pin is
// always the workspace's own directory, never what a link planted there
// points to.
func PinDirs(p *policy.Policy) []string { return pinDirs(viewplan.New(p)) }

func pinDirs(vp *viewplan.Plan) []string {
	var dirs []string
	for _, pin := range vp.Pins {
		dirs = append(dirs, pin.Dir)
	}
	return dirs
}

// PinRoot is the writable root a pin directory lies in: the one it is
// opened beneath.
func PinRoot(p *policy.Policy, dir string) string { return viewplan.New(p).RootOf(dir) }

// pinStep binds the pinned directory's descriptor over itself. Only where
// the view shows writable host content does a pin matter (and only there
// is the descriptor's directory the same thing the view already shows).
func (v *view) pinStep(s step) {
	if v.before(s.path) != hostRW {
		return
	}
	v.set(s.path, hostRW, "--bind-fd", strconv.Itoa(s.pinFD), s.path)
}
