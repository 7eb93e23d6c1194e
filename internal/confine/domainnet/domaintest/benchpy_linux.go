//go:build linux

package domaintest

// netBenchPy measures, with one client program on both paths:
//
//	lat MODE HOST PORT N   connect + request + first byte, N fresh connections (median, p90 in ms)
//	get MODE HOST PORT BYTES  one HTTP download of BYTES (MB/s, bytes, the client's CPU seconds)
//
// MODE "direct" connects to HOST; "proxy" sends the same request through
// the in-namespace HTTP proxy (absolute-form, as curl and pip do).
const netBenchPy = `import socket, ssl, sys, time
mode, host, port = sys.argv[2], sys.argv[3], int(sys.argv[4])
def conn():
    if sys.argv[1] == "gettls":
        if mode == "proxy":
            s = socket.create_connection(("127.0.0.1", 3128))
            s.sendall(("CONNECT pkg.test:%d HTTP/1.1\r\nHost: pkg.test\r\n\r\n" % port).encode())
            r = b""
            while b"\r\n\r\n" not in r:
                r += s.recv(1)
        else:
            s = socket.create_connection((host, port))
        ctx = ssl.create_default_context(cafile=sys.argv[6])
        return ctx.wrap_socket(s, server_hostname="pkg.test"), ""
    if mode == "proxy":
        s = socket.create_connection(("127.0.0.1", 3128))
        path = "http://%s:%d" % (host, port)
    else:
        s = socket.create_connection((host, port))
        path = ""
    return s, path
if sys.argv[1] == "lat":
    ts = []
    for _ in range(int(sys.argv[5])):
        t0 = time.perf_counter()
        s, path = conn()
        s.sendall(("GET %s/ HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, host)).encode())
        s.recv(1)
        ts.append((time.perf_counter() - t0) * 1000)
        s.close()
    ts.sort()
    print("%.3f %.3f" % (ts[len(ts)//2], ts[len(ts)*9//10]))
else:
    n = int(sys.argv[5])
    s, path = conn()
    s.sendall(("GET %s/big?n=%d HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, n, host)).encode())
    import resource
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter(); got = 0
    buf = bytearray(1 << 20)
    while True:
        k = s.recv_into(buf)
        if k == 0: break
        got += k
    dt = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    print("%.1f %d %.4f" % (got / dt / 1e6, got, cpu))
`
