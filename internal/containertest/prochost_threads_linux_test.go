package containertest

import (
	"os"
	"strings"
	"testing"
)

// The thread-alias script: a victim of several threads, a secret in its
// argv, started before the sandbox. /proc lists only thread-group leaders,
// but /proc/<tid> of any other thread opens all the same: the control
// reads the victim's command line through those ids; confined, the same
// reads must find nothing (the sandbox masks every thread present at its
// start, not only the leader).
const procThreadsScript = `
cd /ws
/bin/attack threads /ws/tids.txt argv-s3cret > /dev/null &
while [ ! -e /ws/tids.txt ]; do sleep 0.1; done
for i in $(cat /ws/tids.txt); do cat /proc/$i/cmdline; echo; cat /proc/$i/status; done > /out/c-tids.txt 2>&1
/bin/ringfence run --json --root /ws -- sh -c '
  for i in $(cat /ws/tids.txt); do cat /proc/$i/cmdline; echo; cat /proc/$i/status; ls /proc/$i/fd; done > /ws/tids-read.txt 2>&1
  echo done > /ws/inner-done
' > /out/run.json 2>&1
echo done
`

// TestHostProcThreadAliases: the degraded linux backend's container /proc
// must hide a process present at the start through its threads' ids too.
// (Before the fix only /proc/<pid> of each leader was masked, and the
// victim's argv, status and open descriptor numbers were read through
// /proc/<tid>.) As root and nobody.
func TestHostProcThreadAliases(t *testing.T) {
	for uname, user := range map[string]string{"root": "", "nobody": "65534:65534"} {
		t.Run(uname, func(t *testing.T) {
			b := newBox(t, "", user)
			out := b.run(t, procThreadsScript)
			run, _ := os.ReadFile(b.path("out/run.json"))
			if !strings.Contains(out, "done") || !b.contains("ws/inner-done", "done") {
				t.Fatalf("the script did not finish:\n%s\n%s", out, run)
			}
			if r := parseRun(t, string(run)); r.Backend != "linux" || !strings.Contains(string(run), "no fresh /proc") {
				t.Fatalf("not the degraded linux backend:\n%s", run)
			}
			tids, _ := os.ReadFile(b.path("ws/tids.txt"))
			if len(strings.Fields(string(tids))) == 0 {
				t.Fatal("the victim wrote no thread ids")
			}
			if !b.contains("out/c-tids.txt", "argv-s3cret") {
				got, _ := os.ReadFile(b.path("out/c-tids.txt"))
				t.Fatalf("control: the victim's argv not read through its thread ids unconfined (%s): %s", tids, got)
			}
			got, _ := os.ReadFile(b.path("ws/tids-read.txt"))
			for _, leak := range []string{"argv-s3cret", "attack", "Tgid"} {
				if strings.Contains(string(got), leak) {
					t.Fatalf("the sandbox read %q through thread ids %s of a masked process:\n%s", leak, tids, got)
				}
			}
			t.Logf("thread ids %s, confined reads: %q", tids, got)
		})
	}
}
