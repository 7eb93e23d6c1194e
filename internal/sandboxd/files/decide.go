package files

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
	"github.com/ringfence/ringfence/policy"
)

// Pure decisions: which status and code an outcome is answered with, how
// the query parameters parse, which variables /v1/metadata may show, and
// how an outcome travels in a header. Table-tested and fuzzed.

// statusOf maps a fence outcome to the spec's status and error code. The
// spec names 403 for anything the sandbox refuses to touch, 404 for what
// is not there, 400 for a bad request and 409 for a non-empty directory;
// an upload over the bound is 413, which the spec leaves open.
func statusOf(method string, o outcome.Outcome) (int, string) {
	switch o.Kind {
	case outcome.OK, outcome.ScopeLimited:
		return http.StatusOK, ""
	case outcome.NotFound:
		return http.StatusNotFound, CodeNotFound
	case outcome.DeniedByPolicy, outcome.OutsideWriteRoot, outcome.PathRejected, outcome.NotARegularFile:
		return http.StatusForbidden, CodePermissionDenied
	case outcome.IsADirectory:
		return http.StatusBadRequest, CodeInvalidArgument
	case outcome.NotADirectory:
		// A file where a directory was named: nothing is there to read
		// or remove; a write cannot make parents through it.
		if method == http.MethodPut {
			return http.StatusBadRequest, CodeInvalidArgument
		}
		return http.StatusNotFound, CodeNotFound
	case outcome.InvalidArguments:
		if o.Detail == workspace.DetailNotEmpty || o.Detail == workspace.DetailRoot {
			return http.StatusConflict, CodeConflict
		}
		return http.StatusBadRequest, CodeInvalidArgument
	case outcome.OverBudget:
		return http.StatusRequestEntityTooLarge, CodeResourceExhausted
	case outcome.IOFailure:
		if o.Detail == workspace.DetailSource {
			return http.StatusBadRequest, CodeInvalidArgument
		}
	}
	return http.StatusInternalServerError, CodeInternal
}

var modePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^0[0-7]{3}$`) })

// parseMode reads PUT's mode parameter: absent is 0644, as the spec says;
// anything but ^0[0-7]{3}$ is refused (so never a set-id or sticky bit).
func parseMode(q string, present bool) (uint32, bool) {
	if !present {
		return 0o644, true
	}
	if !modePattern().MatchString(q) {
		return 0, false
	}
	m, err := strconv.ParseUint(q, 8, 32)
	return uint32(m), err == nil
}

// parseRecursive reads DELETE's recursive parameter (absent is false).
func parseRecursive(q string, present bool) (bool, bool) {
	if !present {
		return false, true
	}
	b, err := strconv.ParseBool(q)
	return b, err == nil
}

// credentialMarkers are words whose presence anywhere in a name withholds
// it from /v1/metadata, beside policy.CredentialName: the reference
// daemon's list, kept so ringfence never serves a name it would hide.
var credentialMarkers = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CRED", "KEY", "AUTH", "BEARER", "PRIVATE", "CERT",
	// Beyond the reference's list: names that hold a session or a
	// signing secret, or a whole connection string.
	"JWT", "SESSION", "COOKIE", "HMAC", "SIGNING", "SALT", "DSN", "WEBHOOK"}

// credentialValueMarkers are shapes of a value that carries a secret
// whatever its name, beside policy.CredentialValue (which reads URLs,
// known token prefixes and keys): a connection string's password, an
// HTTP authorization, a slack webhook. Matched lower-cased, as substrings.
var credentialValueMarkers = []string{"password=", "pwd=", "passwd=", "secret=", "token=", "apikey=", "api_key=",
	"bearer ", "basic ", "authorization:", "hooks.slack.com/services/"}

// jwtShape is a JSON Web Token (or any base64url JSON header with a
// payload after it): "eyJ" is base64 for `{"`.
var jwtShape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.`)
})

// metadataEnv keeps the variables of environ whose names start with
// prefix, withholding every name that looks like a credential
// (policy.CredentialName and the markers above) and every value that does
// (policy.CredentialValue). The first occurrence of a name counts.
func metadataEnv(environ []string, prefix string) map[string]string {
	out := map[string]string{}
	seen := map[string]bool{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || seen[name] || !strings.HasPrefix(name, prefix) || len(name) == len(prefix) {
			continue
		}
		seen[name] = true
		if credentialLike(name, value) {
			continue
		}
		out[name] = value
	}
	return out
}

func credentialLike(name, value string) bool {
	if policy.CredentialName(name) || policy.CredentialValue(value) || jwtShape().MatchString(value) {
		return true
	}
	lv := strings.ToLower(value)
	for _, m := range credentialValueMarkers {
		if strings.Contains(lv, m) {
			return true
		}
	}
	u := strings.ToUpper(name)
	for _, m := range credentialMarkers {
		if strings.Contains(u, m) {
			return true
		}
	}
	return false
}

// outcomeHeader is o as JSON in printable ASCII: every byte outside it is
// escaped as \uXXXX, so a path the model chose cannot break the header or
// smuggle another one.
func outcomeHeader(o outcome.Outcome) string {
	b, err := json.Marshal(o)
	if err != nil {
		return `{"kind":"` + string(o.Kind) + `"}`
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r >= 0x20 && r < 0x7f:
			sb.WriteByte(byte(r))
		case r > 0xffff:
			r1, r2 := surrogates(r)
			sb.WriteString(`\u` + hex4(r1) + `\u` + hex4(r2))
		default: // json.Marshal already escaped controls; RuneError stays U+FFFD
			sb.WriteString(`\u` + hex4(r))
		}
		b = b[size:]
	}
	return sb.String()
}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

func hex4(r rune) string {
	s := strconv.FormatInt(int64(r), 16)
	return strings.Repeat("0", 4-len(s)) + s
}
