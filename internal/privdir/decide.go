package privdir

import (
	"strings"
	"time"
)

// stagingAge is how old a staging directory must be before Sweep takes it
// for a leftover: Make renames its own within microseconds.
const stagingAge = time.Minute

// candidate decides whether Sweep considers an entry named name, of age
// age: a final directory of prefix (then only if its lock is free), or an
// old staging one.
func candidate(name, prefix string, age time.Duration) bool {
	switch {
	case strings.HasPrefix(name, prefix) && len(name) > len(prefix):
		return true
	case strings.HasPrefix(name, staging(prefix)) && len(name) > len(staging(prefix)):
		return age >= stagingAge
	}
	return false
}

// staging is the name prefix a directory has until it is locked.
func staging(prefix string) string { return "." + prefix + "new-" }
