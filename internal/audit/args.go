package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// MaxText bounds every string kept verbatim in a record (command lines,
// paths, patterns): 1 KiB.
const MaxText = 1 << 10

// kept are the argument names whose string values are recorded as sent
// (cut at MaxText): paths, patterns, the command line. Every other string,
// and every nested value, is recorded as its size and digest only.
var kept = map[string]bool{
	"path": true, "cwd": true, "pattern": true, "glob": true,
	"command": true, "argv": true,
}

// Digest is how a value that may be contents is recorded.
type Digest struct {
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
}

func digest(b []byte) Digest {
	sum := sha256.Sum256(b)
	return Digest{Bytes: len(b), SHA256: hex.EncodeToString(sum[:])}
}

// Args is a call's arguments as recorded: names kept, contents replaced
// by their digest. Arguments that are not a JSON object are recorded as
// {"_raw": digest}.
func Args(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return map[string]any{"_raw": digest(raw)}
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[cut(k)] = value(k, v)
	}
	return out
}

func value(name string, v json.RawMessage) any {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if kept[name] {
			return cut(s)
		}
		return digest([]byte(s))
	}
	var scalar any
	if json.Unmarshal(v, &scalar) == nil {
		switch scalar.(type) {
		case float64, bool, nil:
			return scalar
		}
	}
	var list []string
	if kept[name] && json.Unmarshal(v, &list) == nil {
		return cutList(list)
	}
	return digest(v)
}

// cut keeps at most MaxText bytes of s, on a rune boundary, and says how
// much was cut.
func cut(s string) string { return cutAt(s, MaxText) }

func cutAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…[" + strconv.Itoa(len(s)-n) + " more bytes]"
}

// cutList keeps a list of strings (argv) within MaxText in total.
func cutList(list []string) []string {
	out := make([]string, 0, len(list))
	left := MaxText
	for i, s := range list {
		if left <= 0 {
			return append(out, "…["+strconv.Itoa(len(list)-i)+" more arguments]")
		}
		out = append(out, cutAt(s, left))
		left -= len(s)
	}
	return out
}
