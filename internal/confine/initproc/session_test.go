package initproc

import (
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/status"
)

func TestDecodeRequest(t *testing.T) {
	for _, c := range []struct {
		name, in string
		ok       bool
	}{
		{"start", `{"op":"start","id":1,"argv":["true"],"dir":"/workspace"}`, true},
		{"signal", `{"op":"signal","id":1,"sig":15}`, true},
		{"start on a terminal", `{"op":"start","id":1,"argv":["sh"],"dir":"/","terminal":{"rows":24,"cols":80}}`, true},
		{"terminal of no size", `{"op":"start","id":1,"argv":["sh"],"dir":"/","terminal":{"rows":0,"cols":80}}`, false},
		{"resize", `{"op":"resize","id":1,"terminal":{"rows":30,"cols":100}}`, true},
		{"resize without size", `{"op":"resize","id":1}`, false},
		{"resize to zero", `{"op":"resize","id":1,"terminal":{"rows":30,"cols":0}}`, false},
		{"no id", `{"op":"start","argv":["true"],"dir":"/"}`, false},
		{"empty argv", `{"op":"start","id":1,"argv":[],"dir":"/"}`, false},
		{"empty program", `{"op":"start","id":1,"argv":[""],"dir":"/"}`, false},
		{"relative dir", `{"op":"start","id":1,"argv":["true"],"dir":"work"}`, false},
		{"no dir", `{"op":"start","id":1,"argv":["true"]}`, false},
		{"NUL in argv", `{"op":"start","id":1,"argv":["tr\u0000ue"],"dir":"/"}`, false},
		{"NUL in env", `{"op":"start","id":1,"argv":["true"],"env":["A=\u0000"],"dir":"/"}`, false},
		{"NUL in dir", `{"op":"start","id":1,"argv":["true"],"dir":"/\u0000"}`, false},
		{"signal 0", `{"op":"signal","id":1,"sig":0}`, false},
		{"signal too big", `{"op":"signal","id":1,"sig":65}`, false},
		{"negative signal", `{"op":"signal","id":1,"sig":-9}`, false},
		{"unknown op", `{"op":"exec","id":1}`, false},
		{"not json", `start true`, false},
		{"empty", ``, false},
		{"report as request", `{"kind":"exited","id":1,"event":{"kind":"exited"}}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeRequest([]byte(c.in))
			if (err == nil) != c.ok {
				t.Fatalf("err %v, want ok=%v", err, c.ok)
			}
		})
	}
	if _, err := DecodeRequest([]byte(`{"op":"start","id":1,"argv":["` + strings.Repeat("a", MaxControlMsg) + `"],"dir":"/"}`)); err == nil {
		t.Fatal("an oversized request was accepted")
	}
}

func TestDecodeReport(t *testing.T) {
	for _, c := range []struct {
		name, in string
		ok       bool
	}{
		{"ready", `{"kind":"ready"}`, true},
		{"started", `{"kind":"started","id":2,"event":{"kind":"started","pid":7}}`, true},
		{"exited", `{"kind":"exited","id":2,"event":{"kind":"exited","exitCode":0}}`, true},
		{"failed", `{"kind":"failed","id":2,"event":{"kind":"failed","reason":"not-found"}}`, true},
		{"no event", `{"kind":"exited","id":2}`, false},
		{"no id", `{"kind":"exited","event":{"kind":"exited"}}`, false},
		{"kinds differ", `{"kind":"exited","id":2,"event":{"kind":"started"}}`, false},
		{"unknown", `{"kind":"exec","id":2,"event":{"kind":"exec"}}`, false},
		{"request as report", `{"op":"start","id":1,"argv":["true"],"dir":"/"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeReport([]byte(c.in))
			if (err == nil) != c.ok {
				t.Fatalf("err %v, want ok=%v", err, c.ok)
			}
		})
	}
}

func TestControlFD(t *testing.T) {
	if got := ControlFD(&Spec{}); got != HandoffFD {
		t.Fatalf("without a proxy: %d", got)
	}
	if got := ControlFD(&Spec{Proxy: &ProxySpec{}}); got != HandoffFD+1 {
		t.Fatalf("with a proxy: %d", got)
	}
}

// Whatever the bytes, a decoded request is one the init can act on
// safely, and a decoded report names a process and a matching event.
func FuzzDecodeControl(f *testing.F) {
	f.Add([]byte(`{"op":"start","id":1,"argv":["true"],"dir":"/"}`))
	f.Add([]byte(`{"op":"signal","id":1,"sig":9}`))
	f.Add([]byte(`{"kind":"exited","id":2,"event":{"kind":"exited","exitCode":0}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := DecodeRequest(b); err == nil {
			if m.ID == 0 {
				t.Fatal("request without id")
			}
			switch m.Op {
			case OpStart:
				if len(m.Argv) == 0 || m.Argv[0] == "" || !strings.HasPrefix(m.Dir, "/") {
					t.Fatalf("bad start accepted: %+v", m)
				}
				for _, s := range append(append([]string{m.Dir}, m.Argv...), m.Env...) {
					if strings.ContainsRune(s, 0) {
						t.Fatalf("NUL accepted: %q", s)
					}
				}
			case OpSignal:
				if m.Sig <= 0 || m.Sig > 64 {
					t.Fatalf("bad signal accepted: %d", m.Sig)
				}
			default:
				t.Fatalf("unknown op accepted: %q", m.Op)
			}
		}
		if m, err := DecodeReport(b); err == nil && m.Kind != ReportReady {
			if m.ID == 0 || m.Event == nil || m.Event.Kind != m.Kind {
				t.Fatalf("bad report accepted: %+v", m)
			}
			switch m.Kind {
			case status.Started, status.Failed, status.Exited:
			default:
				t.Fatalf("unknown report accepted: %q", m.Kind)
			}
		}
	})
}
