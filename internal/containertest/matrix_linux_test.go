package containertest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// doctorReport is the part of `ringfence doctor --json` the matrix reads.
type doctorReport struct {
	Auto        string   `json:"auto"`
	AutoReasons []string `json:"autoReasons"`
	UserNS      struct {
		Available bool     `json:"available"`
		Reasons   []string `json:"reasons"`
	} `json:"userNamespaces"`
	Linux struct {
		Available bool     `json:"available"`
		NotTaken  []string `json:"stepsNotTaken"`
	} `json:"linuxBackend"`
	Container struct {
		Inside    bool     `json:"inside"`
		Runtime   string   `json:"runtime"`
		TakenAway []string `json:"takenAway"`
	} `json:"container"`
	Features []struct {
		Name   string `json:"name"`
		Level  string `json:"level"`
		Reason string `json:"reason"`
	} `json:"features"`
}

func parseDoctor(t *testing.T, raw []byte) doctorReport {
	t.Helper()
	var r doctorReport
	i := strings.IndexByte(string(raw), '{')
	if i < 0 || json.Unmarshal(raw[i:], &r) != nil {
		t.Fatalf("no doctor report:\n%s", raw)
	}
	return r
}

// matrixCase is one container setting.
type matrixCase struct {
	profile string // "runtime-default" or "no-namespaces"
	user    string // "root" or "nobody"
}

func (c matrixCase) podmanUser() string {
	if c.user == "nobody" {
		return "65534:65534"
	}
	return ""
}

func (c matrixCase) seccomp(t *testing.T) string {
	if c.profile == "no-namespaces" {
		return noNamespacesProfile(t)
	}
	return ""
}

// wantAuto is the backend auto must pick: linux where the runtime lets the
// container make user namespaces (its /proc and host name degraded), the
// landlock backend only where namespaces themselves are refused.
func (c matrixCase) wantAuto() string {
	if c.profile == "no-namespaces" {
		return "landlock"
	}
	return "linux"
}

var matrix = []matrixCase{
	{"runtime-default", "root"}, {"runtime-default", "nobody"},
	{"no-namespaces", "root"}, {"no-namespaces", "nobody"},
}

// TestContainerMatrix runs ringfence in a real container under every
// setting of the matrix: the runtime's default seccomp profile (user
// namespaces allowed) and a Docker-like one refusing new namespaces, as
// root and nobody, in a minimal root (through a shell and as pid 1) and in
// a root holding only the binary (as pid 1). In each: doctor names the
// backend auto picks and why, and it is the expected one; ordinary work
// runs; the core escapes, attacked with auto's backend, are refused (each
// with its unconfined control, see judge); the run's enforcement names
// every step not taken.
func TestContainerMatrix(t *testing.T) {
	for _, c := range matrix {
		t.Run(c.profile+"/"+c.user, func(t *testing.T) {
			prof := c.seccomp(t)
			t.Run("minimal-through-shell", func(t *testing.T) {
				b := newBox(t, prof, c.podmanUser())
				victim := b.path("data/victim")
				script := "/bin/ringfence doctor --json > /out/doctor.json 2>&1\n" +
					"/bin/ringfence run --json --root /ws -- sh -c 'echo work > /ws/work.txt' > /out/work.json 2>&1\n" +
					strings.Replace(escapeScript, "--backend landlock ", "", 1)
				out := b.run(t, script)
				if !strings.Contains(out, "done") {
					t.Fatalf("the script did not finish:\n%s", out)
				}
				raw, err := os.ReadFile(b.path("out/doctor.json"))
				must(t, err)
				d := parseDoctor(t, raw)
				checkDoctor(t, c, d, raw)
				work, err := os.ReadFile(b.path("out/work.json"))
				must(t, err)
				r := parseRun(t, string(work))
				if r.Kind != "success" || !b.contains("ws/work.txt", "work") {
					t.Fatalf("ordinary work failed:\n%s", work)
				}
				if r.Backend != c.wantAuto() {
					t.Errorf("run used backend %s, doctor's auto is %s", r.Backend, d.Auto)
				}
				checkReasons(t, c, string(work))
				b.judge(t, victim)
			})
			t.Run("minimal-as-pid1", func(t *testing.T) {
				b := newBox(t, prof, c.podmanUser())
				out, code := b.exec(t, "/bin/ringfence", "run", "--json", "--root", "/ws", "--", "sh", "-c", "echo pid1 > /ws/pid1.txt")
				r := parseRun(t, out)
				if code != 0 || r.Kind != "success" || !b.contains("ws/pid1.txt", "pid1") || r.Backend != c.wantAuto() {
					t.Fatalf("as pid 1: exit %d, backend %s:\n%s", code, r.Backend, out)
				}
			})
			t.Run("binary-only-as-pid1", func(t *testing.T) {
				b := newBareBox(t, prof, c.podmanUser())
				raw, code := b.exec(t, "/bin/ringfence", "doctor", "--json")
				if code != 0 {
					t.Fatalf("doctor as pid 1 in a binary-only root: exit %d\n%s", code, raw)
				}
				checkDoctor(t, c, parseDoctor(t, []byte(raw)), []byte(raw))
				out, code := b.exec(t, "/bin/ringfence", "run", "--json", "--root", "/ws", "--",
					"/bin/ringfence", "policy", "init", "/ws/p.toml")
				r := parseRun(t, out)
				if code != 0 || r.Kind != "success" || r.Backend != c.wantAuto() {
					t.Fatalf("binary-only as pid 1: exit %d, backend %s:\n%s", code, r.Backend, out)
				}
				if _, err := os.Stat(b.path("ws/p.toml")); err != nil {
					t.Fatalf("the command's file is missing: %v\n%s", err, out)
				}
				checkReasons(t, c, out)
			})
		})
	}
}

// checkDoctor: inside a container, auto is the expected backend and the
// report says why and what the runtime took away.
func checkDoctor(t *testing.T, c matrixCase, d doctorReport, raw []byte) {
	t.Helper()
	if d.Auto != c.wantAuto() {
		t.Errorf("doctor: auto %s, want %s:\n%s", d.Auto, c.wantAuto(), raw)
	}
	if len(d.AutoReasons) == 0 {
		t.Errorf("doctor gives no reason for auto:\n%s", raw)
	}
	if !d.Container.Inside || d.Container.Runtime != "podman" {
		t.Errorf("doctor does not see the podman container: %+v", d.Container)
	}
	taken := strings.Join(d.Container.TakenAway, "\n")
	for _, want := range []string{"masked /proc", "seccomp: a filter is already in force", "capabilities:"} {
		if !strings.Contains(taken, want) {
			t.Errorf("doctor's taken-away list misses %q:\n%s", want, taken)
		}
	}
	if c.profile == "no-namespaces" && (d.UserNS.Available || !strings.Contains(taken, "user namespaces")) {
		t.Errorf("doctor does not say user namespaces are refused:\n%s", raw)
	}
	if c.profile == "runtime-default" && (!d.Linux.Available || len(d.Linux.NotTaken) == 0) {
		t.Errorf("doctor: the linux backend should work with steps not taken (masked /proc):\n%s", raw)
	}
}

// checkReasons: under the linux backend in a container every step not
// taken is named in the run's enforcement reasons.
func checkReasons(t *testing.T, c matrixCase, out string) {
	t.Helper()
	if c.wantAuto() != "linux" {
		return
	}
	for _, want := range []string{"no fresh /proc", "host name is the container's"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run's enforcement reasons do not name %q:\n%s", want, out)
		}
	}
}
