package reaper

import "time"

// Arg is the reaper's entry point name in the entry table (internal/entry).
const Arg = "__reap"

// Env marks the reaper's own environment (and is removed before the
// command runs): the supervisor sets it, so nothing else can make a
// binary act as the reaper by argv alone.
const Env = "RINGFENCE_RUN_REAPER"

// sweepInterval is how often the reaper looks for what is left of the
// tree once it is ending it (the supervisor samples at the same pace).
const sweepInterval = 50 * time.Millisecond
