package initimage_test

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
)

// rtProbe is what the confined command runs (rt16, issue 16 red team).
// $SUP is the supervisor (this test process, which holds the sealed memfd
// at /proc/$SUP/fd/$N); the init is the command's parent (landlock
// backend: no pid namespace) or pid 1 (linux backend). For each way to
// reach the carried init through /proc it tries to read it, open it for
// writing, and execute it; a line tagged GOT: is an attack that worked.
// It then lists its own descriptors beyond 0-2 (the memfd and the init's
// spec, status and gate pipes must not be among them).
const rtProbe = `
try() {
	t=$1
	timeout 2 cat "$t" >/dev/null 2>&1 && echo "GOT:read $t"
	( exec 9<>"$t" ) 2>/dev/null && echo "GOT:rdwr $t"
	# -test.run keeps a test binary reached by mistake from running tests.
	out=$(timeout 5 "$t" -test.run='^$' 2>&1); [ "${out#*started only by ringfence}" != "$out" ] && echo "GOT:exec $t"
}
try /proc/$SUP/fd/$N
timeout 2 cat /proc/$SUP/exe >/dev/null 2>&1 && echo "GOT:read /proc/$SUP/exe"
for p in $PPID 1; do
	try /proc/$p/exe
	for f in /proc/$p/fd/*; do [ -e "$f" ] && try "$f"; done
done
for f in /proc/$$/fd/*; do
	n=${f##*/}
	# No command substitution here: its pipe would be listed.
	case $n in 0|1|2) [ -e "$f" ] && echo "STDIO:$n";; *) [ -e "$f" ] && echo "FD:$n" && readlink "$f";; esac
done
echo done
`

func rtEnv(n string) []string {
	return []string{"PATH=/usr/bin:/bin", "SUP=" + strconv.Itoa(os.Getpid()), "N=" + n}
}

// TestRTCommandCannotReachTheSealedInit: a confined command on each
// backend cannot read, reopen for writing or execute the carried init
// through /proc/<supervisor>/fd/N, /proc/<init>/exe or /proc/<init>/fd/*,
// and holds no descriptor beyond its stdio. Control: the same probe run
// unconfined reads the memfd through the supervisor's /proc and executes
// it. Runs as root and, through the rerun, as 65534.
func TestRTCommandCannotReachTheSealedInit(t *testing.T) {
	path, err := initimage.Path()
	if err != nil {
		t.Fatal(err)
	}
	n := strings.TrimPrefix(path, "/proc/self/fd/")
	if n == path {
		t.Fatalf("the init is not a memfd here: %s", initimage.Describe())
	}
	// Control: unconfined, same user, the supervisor's memfd is readable
	// and runs.
	ctl := exec.Command("/bin/sh", "-c", rtProbe)
	ctl.Env = rtEnv(n)
	out, _ := ctl.CombinedOutput()
	for _, want := range []string{"GOT:read /proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + n, "GOT:exec /proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + n} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("control: unconfined probe lacks %q:\n%s", want, out)
		}
	}
	// (The unconfined shell lists descriptors of its own, 10 and 251: the
	// shell's, not a runtime's; they do not appear confined.)
	if !strings.Contains(string(out), "STDIO:1") {
		t.Fatalf("control: the probe lists no descriptor:\n%s", out)
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			c := confineInWorkspace(t, b, []string{"/bin/sh", "-c", rtProbe}, rtEnv(n))
			res, err := inittest.Run(c, nil)
			if err != nil || res.Code != 0 || !strings.Contains(res.Stdout, "STDIO:0\nSTDIO:1\nSTDIO:2\n") || !strings.Contains(res.Stdout, "done") {
				t.Fatalf("run: %v %+v", err, res)
			}
			t.Logf("uid %d, %s:\n%s", os.Geteuid(), b.name, res.Stdout)
			for _, line := range strings.Split(res.Stdout, "\n") {
				if strings.HasPrefix(line, "GOT:") || strings.HasPrefix(line, "FD:") {
					t.Errorf("uid %d, %s: %s", os.Geteuid(), b.name, line)
				}
			}
		})
	}
}

func TestRTCommandCannotReachTheSealedInitNonRoot(t *testing.T) {
	inittest.RerunAsNonRoot(t, "^TestRTCommandCannotReachTheSealedInit$")
}
