package conformance

import (
	"fmt"
	"os"
	"strings"
)

// stopped reports a host process left stopped (SIGSTOP) by a command.
func stopped(pid int) error {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 && s[i+2] == 'T' {
		return fmt.Errorf("a command stopped host process %d", pid)
	}
	return nil
}
