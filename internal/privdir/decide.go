package privdir

import (
	"strings"
	"time"
)

// stagingAge is how old a staging directory must be before Sweep takes it
// for a leftover: Make renames its own within microseconds.
const stagingAge = time.Minute

// lockTag follows the prefix in the name of every directory Make made: a
// directory of the same prefix without it was made by a ringfence that did
// not lock (an older version, perhaps still running), and is never swept.
const lockTag = "L"

// candidate decides whether Sweep considers an entry named name, of age
// age: a final directory Make made under prefix (then only if its lock is
// free), or an old staging one.
func candidate(name, prefix string, age time.Duration) bool {
	final := prefix + lockTag
	switch {
	case strings.HasPrefix(name, final) && len(name) > len(final):
		return true
	case strings.HasPrefix(name, staging(prefix)) && len(name) > len(staging(prefix)):
		return age >= stagingAge
	}
	return false
}

// staging is the name prefix a directory has until it is locked.
func staging(prefix string) string { return "." + prefix + "new-" }
