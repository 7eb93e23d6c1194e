package audit

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// labelKey is this process's key for session labels. It is never written
// anywhere, so a label cannot be turned back into the session id, nor a
// guessed id checked against a trail written by another process. Drawn on
// first use, not at package initialisation: every ringfence process (the
// sandbox init too) links this package, few label a session.
var labelKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k) // crypto/rand.Read never fails (Go 1.24+): it aborts the program instead
	return k
})

// labelPrefix marks a label, so nobody mistakes one for an id.
const labelPrefix = "s-"

// SessionLabel is what the trail records for a session: the first 64 bits
// of HMAC-SHA256(id) under a per-process key. Calls of one session share a
// label, so a person can still group them, but the trail — which a
// sandboxed command may be able to read — never holds the id itself, and a
// session id is a credential over HTTP (with the bearer token, it is what
// acts in a session). An empty id stays empty.
func SessionLabel(id string) string {
	if id == "" {
		return ""
	}
	m := hmac.New(sha256.New, labelKey())
	m.Write([]byte(id))
	return labelPrefix + hex.EncodeToString(m.Sum(nil)[:8])
}
