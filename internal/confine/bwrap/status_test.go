package bwrap_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/internal/confine/bwrap"
	"github.com/ringfence/ringfence/internal/status"
)

func code(n int) *int { return &n }

func TestEvents(t *testing.T) {
	tests := []struct {
		name        string
		bwrap, shim string
		want        []status.Event
	}{
		{"ran and exited",
			`{ "child-pid": 9313, "mnt-namespace": 4026532178 }` + "\n" + `{ "exit-code": 7 }`,
			`{"kind":"started","pid":2}`,
			[]status.Event{{Kind: status.Started, Pid: 2}, {Kind: status.Exited, ExitCode: code(7)}}},
		{"exec failed",
			`{ "child-pid": 9321 }`,
			`{"kind":"started","pid":2}` + "\n" + `{"kind":"failed","reason":"not-found","stage":"exec","errno":"ENOENT"}`,
			[]status.Event{{Kind: status.Failed, Reason: status.NotFound, Stage: "exec", Errno: "ENOENT"}}},
		{"bwrap failed before the shim", `{ "child-pid": 9321 }`, ``,
			[]status.Event{{Kind: status.Failed, Reason: status.SetupFailed, Stage: "bwrap", Detail: "bwrap exited before it ran the command"}}},
		{"bwrap silent", ``, ``,
			[]status.Event{{Kind: status.Failed, Reason: status.SetupFailed, Stage: "bwrap", Detail: "bwrap exited before it ran the command"}}},
		{"killed before exit-code", `{ "child-pid": 1 }`, `{"kind":"started","pid":2}`,
			[]status.Event{{Kind: status.Started, Pid: 2}}},
		{"garbage ignored", `{ "child-pid": 1 }` + "\nnot json\n" + `{ "exit-code": 3 }`, "junk\n" + `{"kind":"started","pid":2}`,
			[]status.Event{{Kind: status.Started, Pid: 2}, {Kind: status.Exited, ExitCode: code(3)}}},
		{"supervised: pid follows, exact exit", `{ "exit-code": 137 }`,
			`{"kind":"started"}` + "\n" + `{"kind":"started","pid":3}` + "\n" + `{"kind":"exited","signal":"SIGKILL"}`,
			[]status.Event{{Kind: status.Started, Pid: 3}, {Kind: status.Exited, Signal: "SIGKILL"}}},
		{"supervised: shim killed before the pid", `{ "exit-code": 137 }`, `{"kind":"started"}`,
			[]status.Event{{Kind: status.Started}, {Kind: status.Exited, ExitCode: code(137)}}},
		{"second exit ignored", `{ "exit-code": 0 }` + "\n" + `{ "exit-code": 9 }`, `{"kind":"started","pid":2}`,
			[]status.Event{{Kind: status.Started, Pid: 2}, {Kind: status.Exited, ExitCode: code(0)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ev bwrap.Evidence
			bwrap.ReadBwrap(strings.NewReader(tt.bwrap), &ev)
			bwrap.ReadShim(strings.NewReader(tt.shim), &ev)
			if diff := cmp.Diff(tt.want, ev.Events()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
