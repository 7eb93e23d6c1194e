package tools

import (
	"context"
	"strings"
	"sync"

	"github.com/ringfence/ringfence/outcome"
)

// A person may leave a note for the model with any answer. A decline's
// note is the gate-declined outcome's Note; an approval's note travels
// with the call (in its context) from the gate to the result, where it is
// set as the outcome's Note and said after the narration — so the model
// reads "approved, and: use the staging database" as well as "declined,
// because …". Without this the note of an approval was silently dropped.

type notesKey struct{}

// callNotes collects the notes of the approvals given during one call
// (a command may be asked about, then each host it connects to).
type callNotes struct {
	mu    sync.Mutex
	notes []string
}

// maxNoteRunes bounds one note as the tool layer keeps it; a transport
// may bound it further (MCP's form allows 500 characters).
const maxNoteRunes = 2000

func withNotes(ctx context.Context) (context.Context, *callNotes) {
	n := &callNotes{}
	return context.WithValue(ctx, notesKey{}, n), n
}

// addNote keeps an approval's note for the call ctx belongs to; a context
// without a call (none in practice) drops it.
func addNote(ctx context.Context, note string) {
	note = strings.TrimSpace(note)
	n, _ := ctx.Value(notesKey{}).(*callNotes)
	if note == "" || n == nil {
		return
	}
	if r := []rune(note); len(r) > maxNoteRunes {
		note = string(r[:maxNoteRunes]) + "…"
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.notes) < 8 {
		n.notes = append(n.notes, note)
	}
}

func (n *callNotes) joined() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.notes, "\n")
}

// noteText is what the model reads of an approval's note.
func noteText(note string) string { return outcome.ApprovalNote(note) }
