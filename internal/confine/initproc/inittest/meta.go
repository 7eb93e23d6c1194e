//go:build linux

package inittest

import (
	"testing"

	"github.com/ringfence/ringfence/policy"
)

// MetaAttacks plant what the host would later run with more privilege
// than the command had (set-id programs, file capabilities, foreign
// owners), change metadata outside the roots, or reach host services the
// network policy does not cover (vsock, unix datagrams, a host process's
// socket inside the workspace). Issue 12, items 1–5.
var MetaAttacks = []Attack{
	{Name: "setuid-chmod", Script: `cp /bin/sh "$ROOT/work/x" && chmod 4755 "$ROOT/work/x" && test -u "$ROOT/work/x"`},
	{Name: "setgid-chmod-file", Script: `cp /bin/sh "$ROOT/work/x" && chmod g+s "$ROOT/work/x" && test -g "$ROOT/work/x"`},
	{Name: "setuid-install", Script: `install -m 4755 /bin/sh "$ROOT/work/y" && test -u "$ROOT/work/y"`},
	{Name: "setuid-python-chmod", Script: py + `"import os; p=os.environ['ROOT']+'/work/q'; open(p,'w').close(); os.chmod(p, 0o4755)" && test -u "$ROOT/work/q"`},
	{Name: "setuid-open-create", Script: py + `"import os; os.close(os.open(os.environ['ROOT']+'/work/z', os.O_CREAT|os.O_WRONLY, 0o4755))" && test -u "$ROOT/work/z"`},
	{Name: "setuid-mknod", Script: py + `"import os,stat; os.mknod(os.environ['ROOT']+'/work/n', stat.S_IFREG|0o4755)" && test -u "$ROOT/work/n"`},
	{Name: "setuid-tar", Root: true, Script: py + `"import tarfile,io,os; t=tarfile.open(os.environ['ROOT']+'/work/s.tar','w'); i=tarfile.TarInfo('s'); d=b'#!/bin/sh\n'; i.size=len(d); i.mode=0o4755; t.addfile(i, io.BytesIO(d)); t.close()" && cd "$ROOT/work" && tar xpf s.tar && test -u s`},
	{Name: "setuid-hardlink", Root: true, Script: `ln /usr/bin/passwd "$ROOT/work/p" && test -u "$ROOT/work/p"`},
	{Name: "file-capability", Root: true, Script: `cp /bin/sh "$ROOT/work/c" && /usr/sbin/setcap cap_net_raw+ep "$ROOT/work/c" && /usr/sbin/getcap "$ROOT/work/c" | grep -q cap_net_raw`},
	{Name: "chown-other", Root: true, Script: `touch "$ROOT/work/o" && chown 4242:4242 "$ROOT/work/o" && test "$(stat -c %u "$ROOT/work/o")" = 4242`},
	{Name: "meta-outside-chmod", Script: `chmod 0600 "$OUT/victim" && test "$(stat -c %a "$OUT/victim")" = 600`},
	{Name: "meta-outside-setuid", Root: true, Script: `chmod u+s "$OUT/victim" && test -u "$OUT/victim"`},
	{Name: "meta-outside-touch", Script: `touch -d 2001-01-01 "$OUT/victim" && test "$(stat -c %Y "$OUT/victim")" -lt 1000000000`},
	{Name: "meta-outside-xattr", Script: py + `"import os; os.setxattr(os.environ['OUT']+'/victim', 'user.rf', b'x')"`},
	{Name: "vsock", Nets: []policy.NetworkMode{policy.NetDeny, policy.NetLoopback, policy.NetAllowAll},
		Script: py + `"import socket; socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)"`},
	{Name: "unix-dgram-sendmsg-to-host", Nets: []policy.NetworkMode{policy.NetDeny, policy.NetAllowAll}, Worked: (*Env).DgramReceived,
		Script: py + `"import socket,os; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); [s.sendmsg([b'token'], [], 0, os.environ['DSOCK']) for _ in range(3)]"`},
	{Name: "unix-dgram-sendto-to-host", Worked: (*Env).DgramReceived,
		Script: py + `"import socket,os; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); [s.sendto(b'token', os.environ['DSOCK']) for _ in range(3)]"`},
	{Name: "unix-host-bound-in-workspace", Nets: []policy.NetworkMode{policy.NetDeny, policy.NetAllowAll},
		Script: py + `"import socket,os; s=socket.socket(socket.AF_UNIX); s.connect(os.environ['HSOCK'])"`},
}

func init() { Attacks = append(Attacks, MetaAttacks...) }

// Ordinary is everyday work the rules above must leave alone.
var Ordinary = []struct{ Name, Script string }{
	{"chmod-x", `cd "$ROOT/work" && printf '#!/bin/sh\necho hi\n' > s.sh && chmod +x s.sh && ./s.sh | grep -q hi`},
	// Written and run at once, 300 times: the guard performs the write-open
	// and must have closed its own descriptor before the command goes on,
	// or exec fails with ETXTBSY whenever the supervisor is descheduled.
	{"write-exec-loop", `cd "$ROOT/work" && i=0 && while [ $i -lt 300 ]; do printf '#!/bin/sh\nexit 0\n' > x$i.sh && chmod +x x$i.sh && ./x$i.sh || exit 1; i=$((i+1)); done`},
	{"chmod-755", `chmod 755 "$ROOT/work/file" && test "$(stat -c %a "$ROOT/work/file")" = 755`},
	{"cp-p", `touch -d 2001-01-01 "$ROOT/work/file" && cp -p "$ROOT/work/file" "$ROOT/work/copy" && test "$(stat -c %Y "$ROOT/work/copy")" -lt 1000000000`},
	{"tar-x", `cd "$ROOT/work" && mkdir t && echo a > t/a && chmod 640 t/a && tar cf t.tar t && rm -r t && tar xpf t.tar && test "$(stat -c %a t/a)" = 640`},
	{"mkdir-m-2775", `mkdir -m 2775 "$ROOT/work/shared" && test -g "$ROOT/work/shared"`},
	{"chmod-g+s-dir", `mkdir "$ROOT/work/d" && chmod g+s "$ROOT/work/d" && test -g "$ROOT/work/d"`},
	{"xattr-own", py + `"import os; p=os.environ['ROOT']+'/work/file'; os.setxattr(p, 'user.rf', b'x'); os.removexattr(p, 'user.rf')"`},
	{"python-venv", `python3 -m venv --without-pip "$ROOT/work/venv" && "$ROOT/work/venv/bin/python" -c 'import sys; print(sys.prefix)' | grep -q venv`},
	{"own-dgram-log", py + `"import socket,os; p=os.environ['ROOT']+'/work/log.sock'; r=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); r.bind(p); s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendmsg([b'x'], [], 0, p); s.sendto(b'y', p); assert r.recv(9) == b'x' and r.recv(9) == b'y'"`},
	{"own-dgram-connected", py + `"import socket,os; p=os.environ['ROOT']+'/work/log2.sock'; r=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); r.bind(p); s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.connect(p); s.send(b'x'); s.sendmsg([b'y']); assert r.recv(9) == b'x' and r.recv(9) == b'y'"`},
	// A daemon whose listener's creator exits (ssh-agent listens, forks,
	// and the parent exits): still the sandbox's own socket.
	{"daemon-listener", py + `"import socket,os,time
p=os.environ['ROOT']+'/work/agent.sock'
pid=os.fork()
if pid == 0:
    l=socket.socket(socket.AF_UNIX); l.bind(p); l.listen()
    if os.fork() == 0:
        c,_=l.accept(); c.sendall(b'k'); time.sleep(0.2); os._exit(0)
    os._exit(0)
os.waitpid(pid, 0)
c=socket.socket(socket.AF_UNIX); c.connect(p); assert c.recv(1) == b'k'"`},
	{"own-stream-server", py + `"import socket,os,threading; p=os.environ['ROOT']+'/work/srv.sock'; l=socket.socket(socket.AF_UNIX); l.bind(p); l.listen(); threading.Thread(target=lambda: l.accept()[0].sendall(b'k'), daemon=True).start(); c=socket.socket(socket.AF_UNIX); c.connect(p); assert c.recv(1) == b'k'"`},
	{"udp-sendmsg-loopback", py + `"import socket; r=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(('127.0.0.1', 0)); s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendmsg([b'u'], [], 0, r.getsockname()); assert r.recv(9) == b'u'"`},
}

// RunOrdinary runs each ordinary task confined (network deny; loopback for
// UDP); every one must succeed.
func RunOrdinary(t *testing.T, confine Confiner) {
	for _, o := range Ordinary {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t)
			net := policy.NetDeny
			if o.Name == "udp-sendmsg-loopback" {
				net = policy.NetAllowAll // the landlock backend refuses IP sockets under loopback
			}
			res := confine(t, e, e.Policy(net), "set -e; "+o.Script, nil)
			if res.Code != 0 {
				t.Fatalf("exit %d, stderr %q", res.Code, res.Stderr)
			}
		})
	}
}

// RunAttacks runs the given attacks as RunSuite runs the whole suite
// (unconfined first, then confined), for backends with suites of their
// own (bwrap).
func RunAttacks(t *testing.T, attacks []Attack, confine Confiner, gaps map[string]string) {
	for _, a := range attacks {
		nets := a.Nets
		if len(nets) == 0 {
			nets = []policy.NetworkMode{policy.NetDeny}
		}
		for _, n := range nets {
			gap := gaps[a.Name]
			t.Run(a.Name+"/"+netName(n), func(t *testing.T) {
				t.Parallel()
				runAttack(t, a, n, confine, gap)
			})
		}
	}
}
