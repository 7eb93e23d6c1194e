package entry

import (
	"fmt"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	Register("__entry_echo", func(args []string) int { fmt.Println("echo " + strings.Join(args, " ")); return 7 })
	Role("RF_ENTRY_ROLE", func(v string) int { fmt.Println("role " + v); return 9 })
	Tests(m)
}
