package landlock

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/initproc"
	"github.com/ringfence/ringfence/internal/confine/initproc/inittest"
	"github.com/ringfence/ringfence/internal/testenv"
	"github.com/ringfence/ringfence/policy"
)

// TestDomainsLandlockSecondWall: the connect the supervisor performs runs
// inside the command's Landlock domain, so Landlock's TCP rule holds it
// too. With seccomp allowing two ports and Landlock only one, a connect
// to the other is refused; the control, Landlock allowing both, reaches
// it. (Landlock alone would not do: its rule names ports, not addresses —
// TestDomainsProxyOnly's evil twin at the proxy's port.)
func TestDomainsLandlockSecondWall(t *testing.T) {
	if ABI() < 4 {
		testenv.Need(t, "Landlock TCP rules (ABI 4)", errors.New("ABI "+strconv.Itoa(ABI())))
	}
	e := inittest.NewEnv(t)
	probe := e.Root + "/probe.py"
	if err := os.WriteFile(probe, []byte(probePy), 0o644); err != nil {
		t.Fatal(err)
	}
	var ports []uint16
	for range 2 {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("HI\n"))
				c.Close()
			}
		}()
		ports = append(ports, uint16(l.Addr().(*net.TCPAddr).Port))
	}
	pol := e.Policy(policy.NetDomains)
	run := func(landlockPorts []uint16) string {
		plan := WithProxy(NewPlan(pol), ports[0], ports[1])
		plan.Landlock.ConnectTCP = landlockPorts
		spec := &initproc.Spec{Argv: []string{"python3", probe, "connect", "127.0.0.1", strconv.Itoa(int(ports[1]))},
			Dir: e.Root, Env: e.Vars(), Landlock: plan.Landlock, Seccomp: plan.Seccomp, Subreaper: true, Nest: true}
		cmd, err := initimage.NewCmdAt(initproc.SelfExe, spec, sysProcAttr())
		if err != nil {
			t.Fatal(err)
		}
		res, err := inittest.Run(cmd, nil)
		if err != nil {
			t.Fatalf("run: %v %s", err, res.Stderr)
		}
		return strings.TrimSpace(res.Stdout)
	}
	if out := run(ports); out != "OK:HI" {
		t.Fatalf("control (Landlock allows the port) could not connect, the test proves nothing: %q", out)
	}
	if out := run(ports[:1]); out != "ERR:EACCES" {
		t.Fatalf("Landlock's TCP rule did not hold the supervisor's connect: %q", out)
	}
}
