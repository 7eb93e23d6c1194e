package remote

import (
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/internal/sandboxd/wire"
	"github.com/ringfence/ringfence/outcome"
)

// What a server sends is untrusted input: the trailer and the REST error
// never panic the client, and an outcome is believed only when its kind
// agrees with the kind key.
func FuzzServerAnswers(f *testing.F) {
	f.Add("success", `{"kind":"success","exitCode":0,"enforcement":{"files":"full"}}`, 403, `{"kind":"path-rejected"}`, []byte(`{"code":"X","message":"m"}`))
	f.Add("denied", `{"kind":"success"}`, 500, `{`, []byte(`not json`))
	f.Fuzz(func(t *testing.T, kind, bin string, code int, header string, body []byte) {
		zero := int32(0)
		r, _ := resultOf(end{exit: &zero, trailer: metadata.Pairs(wire.TrailerKind, kind, wire.TrailerOutcome, bin), max: 1},
			ringfence.Isolation{Filesystem: true})
		if r == nil || !r.Kind.Known() {
			t.Fatalf("no result kind for %q %q", kind, bin)
		}
		if k, ok := outcome.ExecKindOf(r.Outcome.Kind); !ok || k != r.Kind {
			t.Fatalf("kind %q beside outcome %q", r.Kind, r.Outcome.Kind)
		}
		if err := httpFailure("read", "p", code, header, body); err == nil {
			t.Fatal("no error for a failed answer")
		}
	})
}
