package tools

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/ringfence/ringfence/internal/workspace"
)

// Cursors: glob_files and grep_files return a page of results and, when
// more remain, a cursor to ask for the next one. A cursor is the position
// the page ended at (a root-relative path and a line) sealed with an HMAC
// under a key this process made at random, bound to the tool and to every
// other argument of the call. So a cursor is unforgeable (a made-up or
// edited one is refused), cannot be replayed against another search, and
// would be harmless even if forged: the workspace only uses it to skip
// results before the position, under the scope and policy the call's own
// arguments get (workspace.TestCursorOnlyHides). A cursor from an earlier
// process is refused; the model searches again.

var cursorKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("tools: no randomness for cursor keys: " + err.Error()) // crypto/rand never fails on Linux
	}
	return k
})

const (
	cursorMAC      = 16 // bytes of HMAC-SHA256 kept
	maxCursorChars = 2 * maxPathChars
)

// cursorQuery is what a cursor is bound to: the tool and its arguments
// without the cursor itself.
func cursorQuery(tool string, args any) []byte {
	b, _ := json.Marshal(args) // plain structs of strings, ints and bools: cannot fail
	return append([]byte(tool+"\x00"), b...)
}

func sealCursor(query []byte, c *workspace.Cursor) string {
	if c == nil {
		return ""
	}
	payload := []byte(strconv.Itoa(c.Line) + "\x00" + c.Path)
	return base64.RawURLEncoding.EncodeToString(append(cursorSum(query, payload), payload...))
}

func cursorSum(query, payload []byte) []byte {
	m := hmac.New(sha256.New, cursorKey())
	m.Write(query)
	m.Write([]byte{0xff}) // neither a query nor a payload holds 0xff after JSON
	m.Write(payload)
	return m.Sum(nil)[:cursorMAC]
}

// openCursor checks a cursor against the query; "" is the first page.
func openCursor(query []byte, tok string) (*workspace.Cursor, error) {
	if tok == "" {
		return nil, nil
	}
	bad := fail(invalid("cursor is not one this search returned (it belongs to other arguments, or to an earlier server): search again without it"))
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(raw) < cursorMAC {
		return nil, bad
	}
	sum, payload := raw[:cursorMAC], raw[cursorMAC:]
	if !hmac.Equal(sum, cursorSum(query, payload)) {
		return nil, bad
	}
	line, path, ok := strings.Cut(string(payload), "\x00")
	n, err := strconv.Atoi(line)
	if !ok || err != nil {
		return nil, bad
	}
	return &workspace.Cursor{Path: path, Line: n}, nil
}
