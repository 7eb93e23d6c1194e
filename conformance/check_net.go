package conformance

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ringfence/ringfence"
)

// The network claim: commands cannot reach the host's network. Each check
// starts a listener on the host (loopback TCP or UDP, a unix socket by
// path, an abstract unix socket), has a probe inside the sandbox try to
// reach it, and judges by what the listener saw. The probe's own words only
// tell a refused connection from a probe that could not run.

// nodeProbe and pyProbe try one connection: argv is KIND ADDR with KIND
// tcp, udp, unix or abstract. They print CONNECTED, SENT or REFUSED.
const nodeProbe = `const net=require('net'),dgram=require('dgram');
const [kind,addr]=process.argv.slice(1);
const done=(s)=>{console.log(s);process.exit(0)};
setTimeout(()=>done('REFUSED timeout'),3000);
if(kind==='udp'){const i=addr.lastIndexOf(':');const s=dgram.createSocket('udp4');
 s.on('error',e=>done('REFUSED '+e.code));
 s.send('conformance',+addr.slice(i+1),addr.slice(0,i),(e)=>done(e?'REFUSED '+e.code:'SENT'))}
else{const i=addr.lastIndexOf(':');
 const o=kind==='tcp'?{host:addr.slice(0,i),port:+addr.slice(i+1)}:{path:kind==='abstract'?'\0'+addr:addr};
 const c=net.connect(o,()=>{c.write('conformance');done('CONNECTED')});c.on('error',e=>done('REFUSED '+e.code))}`

const pyProbe = `import socket,sys
k,a=sys.argv[1],sys.argv[2]
try:
    if k in ('tcp','udp'):
        h,p=a.rsplit(':',1)
        s=socket.socket(socket.AF_INET,socket.SOCK_STREAM if k=='tcp' else socket.SOCK_DGRAM)
        s.settimeout(3)
        if k=='tcp':
            s.connect((h,int(p))); s.sendall(b'conformance'); print('CONNECTED')
        else:
            s.sendto(b'conformance',(h,int(p))); print('SENT')
    else:
        s=socket.socket(socket.AF_UNIX); s.settimeout(3)
        s.connect(('\0'+a) if k=='abstract' else a); s.sendall(b'conformance'); print('CONNECTED')
except Exception as e:
    print('REFUSED', type(e).__name__)`

// probeScript picks an interpreter. Node cannot reach abstract sockets
// (it would report a refusal it never tried), so those need Python.
const probeScript = `if [ "$KIND" != abstract ] && command -v "$RF_NODE" >/dev/null 2>&1; then exec "$RF_NODE" -e "$RF_NODE_PROBE" "$KIND" "$ADDR"
elif command -v "$RF_PYTHON" >/dev/null 2>&1; then exec "$RF_PYTHON" -c "$RF_PY_PROBE" "$KIND" "$ADDR"
else echo NOPROBE; fi`

// probe runs the probe for kind/addr and returns what it printed.
func (e *env) probe(kind, addr string) (string, error) {
	vars := map[string]string{
		"RF_NODE": e.opts.Node, "RF_PYTHON": e.opts.Python,
		"RF_NODE_PROBE": nodeProbe, "RF_PY_PROBE": pyProbe, "KIND": kind, "ADDR": addr,
	}
	res, err := e.exec([]string{"sh", "-c", probeScript}, ringfence.ExecOptions{Env: vars, Timeout: 15 * time.Second})
	if err != nil {
		return "", err
	}
	if res.ExitCode == nil {
		return "", fmt.Errorf("the probe did not run: kind %q, stderr %s", res.Kind, clip(res.Stderr))
	}
	return strings.TrimSpace(res.Stdout + " " + res.Stderr), nil
}

// judge turns what the host listener saw and what the probe said into the
// check's verdict: a listener that was reached fails the claim, whatever
// the probe printed.
func judge(what string, reached bool, said string) error {
	switch {
	case reached:
		return fmt.Errorf("a command reached the host's %s (probe said %s)", what, clip(said))
	case strings.Contains(said, "REFUSED") || strings.Contains(said, "SENT"):
		return nil
	}
	if strings.Contains(said, "NOPROBE") {
		return skipf("no probe could run inside the sandbox (need node or python3): %s", clip(said))
	}
	return fmt.Errorf("the probe did not run: %s", clip(said))
}

// streamListener accepts on l until closed and counts what it accepted.
func streamListener(l net.Listener) *atomic.Int32 {
	var n atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return &n
}

func checkTCPLoopback(e *env) error {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return skipf("host listener: %v", err)
	}
	defer l.Close()
	n := streamListener(l)
	said, err := e.probe("tcp", l.Addr().String())
	if err != nil {
		return err
	}
	time.Sleep(50 * time.Millisecond)
	return judge("loopback TCP listener", n.Load() > 0, said)
}

func checkUDPLoopback(e *env) error {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		return skipf("host listener: %v", err)
	}
	defer pc.Close()
	var got atomic.Int32
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			got.Add(1)
		}
	}()
	said, err := e.probe("udp", pc.LocalAddr().String())
	if err != nil {
		return err
	}
	time.Sleep(100 * time.Millisecond)
	return judge("loopback UDP listener", got.Load() > 0, said)
}

func checkUnixSocket(e *env) error {
	path := filepath.Join(e.host, "s.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		return skipf("host listener: %v", err)
	}
	defer l.Close()
	n := streamListener(l)
	said, err := e.probe("unix", path)
	if err != nil {
		return err
	}
	time.Sleep(50 * time.Millisecond)
	return judge("unix socket listener", n.Load() > 0, said)
}

func checkAbstractSocket(e *env) error {
	name := "ringfence-conformance-" + token()
	l, err := net.Listen("unix", "@"+name)
	if err != nil {
		return skipf("abstract sockets on this host: %v", err)
	}
	defer l.Close()
	n := streamListener(l)
	said, err := e.probe("abstract", name)
	if err != nil {
		return err
	}
	time.Sleep(50 * time.Millisecond)
	return judge("abstract unix socket listener", n.Load() > 0, said)
}
