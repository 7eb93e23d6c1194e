package initproc

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// awaitGate blocks until the supervisor admits the init (see GateArg):
// one GateOpen byte on the gate. Anything else — end of file because the
// supervisor died or closed it, another byte, a read error — is a refusal.
func awaitGate(fd int) error {
	f := os.NewFile(uintptr(fd), "gate")
	if f == nil {
		return errors.New("no gate descriptor")
	}
	defer f.Close()
	var b [1]byte
	_, err := io.ReadFull(f, b[:])
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("the supervisor closed the gate without admitting the command")
	case err != nil:
		return err
	case b[0] != GateOpen:
		return fmt.Errorf("unexpected gate byte %#x", b[0])
	}
	return nil
}
