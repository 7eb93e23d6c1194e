package wire

import (
	"encoding/json"
	"reflect"
	"syscall"
	"testing"

	"google.golang.org/grpc/metadata"

	"github.com/ringfence/ringfence/internal/sandbox"
	pb "github.com/ringfence/ringfence/internal/sandboxd/spec/process/v1"
	"github.com/ringfence/ringfence/outcome"
)

// A result's extension comes back whole, and the old shape (no model
// outcome) still reads.
func TestTrailerRoundTrip(t *testing.T) {
	code := 3
	r := &sandbox.ExecResult{Kind: sandbox.KindDenied, ExitCode: &code, Signal: "SIGX", TimedOut: true, Breach: "memory",
		Violations: []outcome.Violation{{Backend: "linux", Reason: "write-denied"}}, Narration: "n", Backend: "linux",
		Enforcement: sandbox.Enforcement{Files: "full", Network: "full"},
		Outcome:     outcome.Outcome{Kind: outcome.SandboxViolation, Violations: []string{"write-denied: /workspace/x"}}}
	cut := &sandbox.Truncated{Stdout: 9}
	o, ok := FromTrailer(Trailer(r, cut))
	if !ok {
		t.Fatal("the server's own trailer was not believed")
	}
	want := Outcome{Kind: r.Kind, ExitCode: &code, Signal: r.Signal, TimedOut: true, Breach: r.Breach, Violations: r.Violations,
		Narration: r.Narration, Backend: r.Backend, Enforcement: r.Enforcement, Truncated: cut, Outcome: &r.Outcome}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", o, want)
	}
	r.Outcome = outcome.Outcome{}
	if o, ok := FromTrailer(Trailer(r, nil)); !ok || o.Outcome != nil {
		t.Fatalf("a result without an outcome: %+v %v", o, ok)
	}
}

func TestFromTrailerDisbelieves(t *testing.T) {
	for _, c := range []struct {
		name string
		md   metadata.MD
	}{
		{"none (the reference daemon)", metadata.MD{}},
		{"only the kind", metadata.Pairs(TrailerKind, "success")},
		{"two kinds", metadata.Pairs(TrailerKind, "success", TrailerKind, "success", TrailerOutcome, `{"kind":"success"}`)},
		{"not JSON", metadata.Pairs(TrailerKind, "success", TrailerOutcome, `{`)},
		{"an unknown kind", metadata.Pairs(TrailerKind, "fine", TrailerOutcome, `{"kind":"fine"}`)},
		{"kind key and JSON disagree", metadata.Pairs(TrailerKind, "denied", TrailerOutcome, `{"kind":"success"}`)},
		{"kind and model outcome disagree", metadata.Pairs(TrailerKind, "success", TrailerOutcome, `{"kind":"success","outcome":{"kind":"sandbox-violation"}}`)},
		{"a model outcome no command has", metadata.Pairs(TrailerKind, "success", TrailerOutcome, `{"kind":"success","outcome":{"kind":"path-rejected"}}`)},
	} {
		if o, ok := FromTrailer(c.md); ok {
			t.Errorf("%s: believed %+v", c.name, o)
		}
	}
	if _, ok := FromTrailer(metadata.Pairs(TrailerKind, "command-failure", TrailerOutcome, `{"kind":"command-failure","outcome":{"kind":"not-found"}}`)); !ok {
		t.Error("not-found is a command-failure")
	}
}

// The JSON field names are the wire contract clients already read.
func TestOutcomeJSONNames(t *testing.T) {
	b, _ := json.Marshal(Outcome{Kind: sandbox.KindSuccess})
	const want = `{"kind":"success","exitCode":null,"violations":null,"narration":"","backend":"","enforcement":{"files":"","network":"","resources":""}}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
}

func TestSignals(t *testing.T) {
	for _, c := range []struct {
		pb  pb.Signal
		sys syscall.Signal
	}{{pb.Signal_SIGNAL_SIGINT, syscall.SIGINT}, {pb.Signal_SIGNAL_SIGTERM, syscall.SIGTERM}, {pb.Signal_SIGNAL_SIGKILL, syscall.SIGKILL}} {
		if s, ok := Signal(c.pb); !ok || s != c.sys {
			t.Errorf("Signal(%v) = %v %v", c.pb, s, ok)
		}
		if p, ok := ProtoSignal(c.sys); !ok || p != c.pb {
			t.Errorf("ProtoSignal(%v) = %v %v", c.sys, p, ok)
		}
	}
	if _, ok := Signal(pb.Signal_SIGNAL_UNSPECIFIED); ok {
		t.Error("SIGNAL_UNSPECIFIED is a signal")
	}
	if _, ok := Signal(pb.Signal(99)); ok {
		t.Error("an unknown number is a signal")
	}
	if _, ok := ProtoSignal(syscall.SIGHUP); ok {
		t.Error("SIGHUP is carried")
	}
}

// FuzzFromTrailer: whatever a server sends, reading it never panics, and
// what is believed is consistent: a known kind, the kind key's, and the
// model outcome's exec kind.
func FuzzFromTrailer(f *testing.F) {
	f.Add("success", `{"kind":"success","exitCode":0,"outcome":{"kind":"ok"}}`)
	f.Add("command-failure", `{"kind":"command-failure","outcome":{"kind":"not-found"}}`)
	f.Add("denied", `{"kind":"success"}`)
	f.Fuzz(func(t *testing.T, kind, bin string) {
		o, ok := FromTrailer(metadata.Pairs(TrailerKind, kind, TrailerOutcome, bin))
		if !ok {
			return
		}
		if string(o.Kind) != kind || !o.Kind.Known() {
			t.Fatalf("believed kind %q under key %q", o.Kind, kind)
		}
		if o.Outcome != nil {
			if k, _ := outcome.ExecKindOf(o.Outcome.Kind); k != o.Kind {
				t.Fatalf("believed kind %q with a %q outcome", o.Kind, o.Outcome.Kind)
			}
		}
	})
}
