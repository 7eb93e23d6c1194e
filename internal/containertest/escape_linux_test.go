package containertest

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestDoctorWithoutNamespaces: under a Docker-like profile, doctor must say
// that user namespaces are refused and that auto picks the landlock backend,
// and must need nothing from the image (there is no `true` on its PATH).
func TestDoctorWithoutNamespaces(t *testing.T) {
	b := newBox(t, noNamespacesProfile(t), "")
	must(t, os.Remove(b.path("bin/test")))
	out := b.run(t, "/bin/ringfence doctor --json > /out/doctor.json; echo rc=$?")
	if !strings.Contains(out, "rc=0") {
		t.Fatalf("doctor failed in the container:\n%s", out)
	}
	var r struct {
		Auto   string `json:"auto"`
		UserNS struct {
			Available bool     `json:"available"`
			Reasons   []string `json:"reasons"`
		} `json:"userNamespaces"`
		Landlock struct {
			ABI int `json:"abi"`
		} `json:"landlock"`
	}
	raw, err := os.ReadFile(b.path("out/doctor.json"))
	must(t, err)
	must(t, json.Unmarshal(raw, &r))
	if r.UserNS.Available {
		t.Errorf("doctor says user namespaces work under a profile that refuses them:\n%s", raw)
	}
	if r.Auto != "landlock" {
		t.Errorf("auto = %q under a no-namespaces profile, want landlock:\n%s", r.Auto, raw)
	}
	if r.Landlock.ABI < 1 {
		t.Errorf("Landlock ABI %d inside the container", r.Landlock.ABI)
	}
}

// The escape script: listeners outside the sandbox first, then each attack
// unconfined (control, message "control") and confined (message
// "confined"). Everything is judged afterwards from the host.
const escapeScript = `
cd /ws
mkdir -p ro .git src /srv/den
echo secret > /srv/den/s
echo '[core]' > .git/config
echo v > /data/victim; echo v > /data/ctl-victim
/bin/attack listen /srv/host.sock /out/host-mark > /out/l1.txt 2>&1 &
L1=$!
/bin/attack listen /ws/ide.sock /out/ide-mark > /out/l2.txt 2>&1 &
/bin/attack listen @rfprobe-$$ /out/abs-mark > /out/l3.txt 2>&1 &
sleep 1
# controls: each attack works in the container without ringfence
/bin/attack write /data/ctl-outside x > /out/c-outside.txt
/bin/attack setid /ws/ctl-suid > /out/c-suid.txt
/bin/attack chmod /data/ctl-victim 4777 > /out/c-chmod.txt
/bin/attack unix /srv/host.sock control > /out/c-host.txt
/bin/attack unix /ws/ide.sock control > /out/c-ide.txt
/bin/attack unix @rfprobe-$$ control > /out/c-abs.txt
/bin/attack stop $L1 > /out/c-stop.txt
/bin/attack write /ws/.mcp.json x > /out/c-mcp.txt && rm /ws/.mcp.json
R="/bin/ringfence run -q --backend landlock --root /ws --read-only /ws/ro --deny /srv/den --"
$R /bin/attack write /data/outside x > /out/outside.txt 2>&1
$R /bin/attack write /ws/.git/config evil > /out/gitconfig.txt 2>&1
$R /bin/attack write /ws/.mcp.json evil > /out/mcp.txt 2>&1
$R /bin/attack write /ws/ro/x evil > /out/ro.txt 2>&1
$R /bin/attack setid /ws/src/suid > /out/suid.txt 2>&1
$R /bin/attack chmod /data/victim 4777 > /out/chmod.txt 2>&1
$R /bin/attack utimes /data/victim > /out/utimes.txt 2>&1
$R /bin/attack setxattr /data/victim > /out/setxattr.txt 2>&1
$R /bin/attack unix /srv/host.sock confined > /out/host.txt 2>&1
$R /bin/attack unix /ws/ide.sock confined > /out/ide.txt 2>&1
$R /bin/attack unix @rfprobe-$$ confined > /out/abs.txt 2>&1
$R /bin/attack stop $L1 > /out/stop.txt 2>&1
$R /bin/cat /srv/den/s > /out/den.txt 2>&1
$R /bin/attack write /ws/ok.txt fine > /out/ok.txt 2>&1
echo done
`

func TestLandlockEscapesInContainer(t *testing.T) {
	profiles := map[string]func(*testing.T) string{
		"runtime-default": func(*testing.T) string { return "" },
		"no-namespaces":   noNamespacesProfile,
	}
	users := map[string]string{"root": "", "nobody": "65534:65534"}
	for pname, profile := range profiles {
		for uname, user := range users {
			t.Run(pname+"/"+uname, func(t *testing.T) {
				b := newBox(t, profile(t), user)
				victim := b.path("data/victim")
				out := b.run(t, escapeScript)
				if !strings.Contains(out, "done") {
					t.Fatalf("the script did not finish:\n%s", out)
				}
				b.judge(t, victim)
			})
		}
	}
}

// judge reads the box from the host: every control must have worked (or
// the attack proves nothing), every confined attempt must have failed.
func (b *box) judge(t *testing.T, victim string) {
	t.Helper()
	control := func(what, file string, worked bool) {
		if !worked {
			out, _ := os.ReadFile(b.path(file))
			t.Fatalf("control %s did not work unconfined in the container, so the attack proves nothing: %s", what, out)
		}
	}
	exists := func(p string) bool { _, err := os.Lstat(b.path(p)); return err == nil }
	setuid := func(p string) bool {
		fi, err := os.Lstat(b.path(p))
		return err == nil && fi.Mode()&os.ModeSetuid != 0
	}
	control("write outside", "out/c-outside.txt", exists("data/ctl-outside"))
	control("set-id", "out/c-suid.txt", setuid("ws/ctl-suid"))
	control("chmod outside", "out/c-chmod.txt", setuid("data/ctl-victim"))
	control("host socket", "out/c-host.txt", b.contains("out/host-mark", "control"))
	control("host socket in the workspace", "out/c-ide.txt", b.contains("out/ide-mark", "control"))
	control("abstract socket", "out/c-abs.txt", b.contains("out/abs-mark", "control"))
	control("signal a process outside", "out/c-stop.txt", b.contains("out/c-stop.txt", "ok"))
	control("plant .mcp.json", "out/c-mcp.txt", b.contains("out/c-mcp.txt", "ok"))

	refused := func(what, file string, escaped bool) {
		t.Helper()
		if escaped {
			out, _ := os.ReadFile(b.path(file))
			t.Errorf("%s: not refused under the landlock backend: %s", what, out)
		}
	}
	refused("write outside the workspace", "out/outside.txt", exists("data/outside"))
	refused("write .git/config", "out/gitconfig.txt", b.contains("ws/.git/config", "evil"))
	refused("plant .mcp.json", "out/mcp.txt", exists("ws/.mcp.json"))
	refused("write a read-only carve-out", "out/ro.txt", exists("ws/ro/x"))
	refused("set-id file", "out/suid.txt", setuid("ws/src/suid"))
	fi, err := os.Stat(victim)
	must(t, err)
	refused("chmod outside the workspace", "out/chmod.txt", fi.Mode()&os.ModeSetuid != 0 || fi.Mode().Perm() != 0o644)
	refused("utimes outside the workspace", "out/utimes.txt", fi.ModTime().Before(time.Unix(1, 0)))
	refused("setxattr outside the workspace", "out/setxattr.txt", b.contains("out/setxattr.txt", "ok"))
	refused("connect a host socket", "out/host.txt", b.contains("out/host-mark", "confined"))
	refused("connect a host-bound socket in the workspace", "out/ide.txt", b.contains("out/ide-mark", "confined"))
	refused("connect a host abstract socket", "out/abs.txt", b.contains("out/abs-mark", "confined"))
	refused("signal a process outside", "out/stop.txt", b.contains("out/stop.txt", "ok"))
	refused("read a denied path", "out/den.txt", b.contains("out/den.txt", "secret"))
	if !b.contains("ws/ok.txt", "fine") {
		out, _ := os.ReadFile(b.path("out/ok.txt"))
		t.Errorf("ordinary write in the workspace failed under the landlock backend: %s", out)
	}
}
