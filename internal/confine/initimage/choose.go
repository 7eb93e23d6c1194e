package initimage

import "fmt"

// Env chooses where the init is executed from: "self" (the running
// binary), "embedded" (the carried small init, or an error), or unset.
const Env = "RINGFENCE_INIT"

// source is where the init comes from.
type source int

const (
	fromSelf     source = iota // initproc.SelfExe
	fromEmbedded               // the memfd; fall back to self if it cannot be made
	mustEmbedded               // the memfd, or an error
)

// choose is the decision: the variable's value, whether the process is a
// test binary, whether this build carries a blob, and — asked only of a
// test binary that would otherwise use the blob — whether the blob was
// built from the sources the test is run from (sourcesAsRecorded).
func choose(value string, underTest, carried bool, fresh func() bool) (source, error) {
	switch value {
	case "self":
		return fromSelf, nil
	case "embedded":
		if !carried {
			return 0, fmt.Errorf("initimage: %s=embedded, but this build carries no init (only linux/amd64 builds do)", Env)
		}
		return mustEmbedded, nil
	case "":
		if !carried || underTest && !fresh() {
			return fromSelf, nil
		}
		return fromEmbedded, nil
	}
	return 0, fmt.Errorf("initimage: %s=%q: want \"self\" or \"embedded\"", Env, value)
}
