package initproc

// parentGone decides, from the supervisor's pid as the spec names it and
// the init's parent now, whether the supervisor has died. An orphan is
// re-parented to the nearest subreaper or to its namespace's pid 1, so any
// change of parent means death; pid 1 as such means nothing, since the
// supervisor may be a container's pid 1. A spec without the supervisor's
// pid (0) falls back to the old sign, re-parenting to pid 1.
func parentGone(supervisor, ppid int) bool {
	if supervisor <= 0 {
		return ppid == 1
	}
	return ppid != supervisor
}
