package remote

import (
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/ringfence/ringfence"
)

// What a server sends is untrusted input: the trailer and the REST error
// never panic the client, and an outcome is believed only when its kind
// agrees with the kind key.
func FuzzServerAnswers(f *testing.F) {
	f.Add("success", `{"kind":"success","exitCode":0,"enforcement":{"files":"full"}}`, 403, `{"kind":"path-rejected"}`, []byte(`{"code":"X","message":"m"}`))
	f.Add("denied", `{"kind":"success"}`, 500, `{`, []byte(`not json`))
	f.Fuzz(func(t *testing.T, kind, bin string, code int, header string, body []byte) {
		w, ok := extension(metadata.Pairs(trailerKind, kind, trailerOutcome, bin))
		if ok && (string(w.Kind) != kind || !knownKind(w.Kind)) {
			t.Fatalf("believed kind %q under key %q", w.Kind, kind)
		}
		zero := int32(0)
		r, _ := resultOf(end{exit: &zero, trailer: metadata.Pairs(trailerKind, kind, trailerOutcome, bin), max: 1},
			ringfence.Isolation{Filesystem: true})
		if r == nil || r.Kind == "" {
			t.Fatalf("no result kind for %q %q", kind, bin)
		}
		if err := httpFailure("read", "p", code, header, body); err == nil {
			t.Fatal("no error for a failed answer")
		}
	})
}
