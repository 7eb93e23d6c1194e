package status

import (
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	code := 3
	cases := []struct {
		name                             string
		lines                            string
		started, unconfirmed, silent, ex bool
		failure                          string
	}{
		{name: "nothing", silent: true},
		{name: "garbage only", lines: "not json\n{\"kind\":\n", silent: true},
		{name: "failed before exec", lines: `{"kind":"failed","reason":"setup","stage":"landlock"}`, failure: SetupFailed},
		// The runner died after it said it would fork: the command may
		// have run, so it is never told that it did not.
		{name: "exec then silence", lines: `{"kind":"exec"}`, started: true, unconfirmed: true},
		{name: "exec then not found", lines: `{"kind":"exec"}` + "\n" + `{"kind":"failed","reason":"not-found"}`, failure: NotFound},
		{name: "exec started exited", lines: `{"kind":"exec"}` + "\n" + `{"kind":"started","pid":2}` + "\n" + `{"kind":"exited","exitCode":3}`, started: true, ex: true},
		{name: "started without exec (bwrap shim)", lines: `{"kind":"started"}`, started: true},
		{name: "failed after started is ignored", lines: `{"kind":"started"}` + "\n" + `{"kind":"failed","reason":"setup"}`, started: true},
		{name: "started after failed wins", lines: `{"kind":"failed","reason":"setup"}` + "\n" + `{"kind":"started"}`, started: true},
		{name: "exited only", lines: `{"kind":"exited","exitCode":3}`, ex: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := Read(strings.NewReader(c.lines))
			if s.Started != c.started || s.Unconfirmed != c.unconfirmed || s.Silent != c.silent || (s.Exit != nil) != c.ex {
				t.Fatalf("got %+v", s)
			}
			switch {
			case c.failure == "" && s.Failure != nil:
				t.Fatalf("unexpected failure %+v", s.Failure)
			case c.failure != "" && (s.Failure == nil || s.Failure.Reason != c.failure):
				t.Fatalf("failure %+v, want %s", s.Failure, c.failure)
			}
			if c.ex && (s.Exit.ExitCode == nil || *s.Exit.ExitCode != code) {
				t.Fatalf("exit %+v", s.Exit)
			}
		})
	}
}

// FuzzRead: whatever a runner writes, Read terminates, never reports both
// a failure and a start, and reports silence only when nothing counted.
func FuzzRead(f *testing.F) {
	f.Add(`{"kind":"exec"}` + "\n" + `{"kind":"started"}`)
	f.Add(`{"kind":"failed","reason":"not-found"}`)
	f.Add(`{"kind":"failed"}` + "\n" + `{"kind":"started"}`)
	f.Fuzz(func(t *testing.T, in string) {
		s := Read(strings.NewReader(in))
		if s.Started && s.Failure != nil {
			t.Fatalf("started and failed: %+v", s)
		}
		if s.Silent && (s.Started || s.Failure != nil || s.Exit != nil) {
			t.Fatalf("silent with records: %+v", s)
		}
		if s.Unconfirmed && !s.Started {
			t.Fatalf("unconfirmed but not started: %+v", s)
		}
	})
}
