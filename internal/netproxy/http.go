package netproxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ServeHTTP serves one client connection of the explicit HTTP proxy:
// CONNECT host:port (then a TLS or HTTP check inside the tunnel), or
// absolute-form requests (GET http://host/…) forwarded one by one. It
// closes conn when done.
func (p *Proxy) ServeHTTP(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	br := bufio.NewReaderSize(conn, 16<<10)
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	hosts, err := peekHosts(br)
	if err != nil {
		writeStatus(conn, http.StatusBadRequest, ReasonBadRequest, err.Error())
		return
	}
	req, err := http.ReadRequest(br)
	if err != nil {
		p.reportInvalid("http", "(unparsable request)", ReasonBadRequest, err)
		writeStatus(conn, http.StatusBadRequest, ReasonBadRequest, "")
		return
	}
	conn.SetReadDeadline(time.Time{})
	if req.Method == http.MethodConnect {
		p.serveConnect(ctx, conn, br, req)
		return
	}
	t, err := requestTarget(req, hosts)
	if err != nil {
		reason := ReasonBadRequest
		if err == errHostMismatch {
			reason = ReasonHostMatch
		}
		p.reportInvalid("http", req.Host, reason, err)
		writeStatus(conn, http.StatusBadRequest, reason, err.Error())
		return
	}
	f := p.beginHTTP(ctx, conn, "http", t)
	defer f.end()
	if f.up == nil {
		return // refused or not reached: the client has its answer
	}
	defer f.up.Close()
	p.forward(&f.ev, t, conn, br, f.up, req)
}

func (p *Proxy) serveConnect(ctx context.Context, conn net.Conn, br *bufio.Reader, req *http.Request) {
	t, err := ParseAuthority(req.RequestURI)
	if err != nil {
		p.reportInvalid("connect", req.RequestURI, ReasonBadRequest, err)
		writeStatus(conn, http.StatusBadRequest, ReasonBadRequest, err.Error())
		return
	}
	f := p.beginHTTP(ctx, conn, "connect", t)
	defer f.end()
	if f.up == nil {
		return // refused or not reached: the client has its answer
	}
	defer f.up.Close()
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		return
	}
	p.tunnel(&f.ev, t, conn, br, f.up)
}

// deny answers a refused or failed request and records why.
// beginHTTP is begin for the HTTP front ends: a refusal is answered 403
// with the reason, a failed dial 502, and the flow then has no upstream.
func (p *Proxy) beginHTTP(ctx context.Context, conn net.Conn, via string, t Target) *flow {
	f, err := p.begin(ctx, via, t)
	if err != nil {
		deny(conn, &f.ev, f.d, err)
		f.up = nil
	}
	return f
}

func deny(conn net.Conn, ev *Event, d Decision, err error) {
	if _, ok := err.(*errDenied); ok {
		writeStatus(conn, http.StatusForbidden, d.Reason, d.Why)
		return
	}
	ev.Verdict, ev.Reason, ev.Why = Allow, "", "upstream: "+err.Error()
	writeStatus(conn, http.StatusBadGateway, "", "")
}

// requestTarget is the target of an absolute-form request; its Host
// headers (hosts, as sent: net/http drops them for an absolute URL) must
// name the same host — a different one is how a request reaches a
// forbidden site through an allowed address.
func requestTarget(req *http.Request, hosts []string) (Target, error) {
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" {
		return Target{}, fmt.Errorf("want an absolute http:// URL or CONNECT")
	}
	auth := req.URL.Host
	if req.URL.Port() == "" {
		auth += ":80"
	}
	t, err := ParseAuthority(auth)
	if err != nil {
		return Target{}, err
	}
	if len(hosts) > 1 {
		return Target{}, errHostMismatch
	}
	for _, h := range hosts {
		if !sameHost(h, t) {
			return Target{}, errHostMismatch
		}
	}
	return t, nil
}

// peekHosts returns the Host header values of the request head waiting in
// br, without consuming it. It reads no further than the head's end, so a
// client waiting for an answer is never waited on.
func peekHosts(br *bufio.Reader) ([]string, error) {
	if _, err := br.Peek(1); err != nil {
		return nil, err
	}
	for {
		b, _ := br.Peek(br.Buffered())
		if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
			var hosts []string
			for _, line := range strings.Split(string(b[:i]), "\r\n")[1:] {
				name, value, ok := strings.Cut(line, ":")
				if ok && strings.EqualFold(strings.TrimSpace(name), "host") {
					hosts = append(hosts, strings.TrimSpace(value))
				}
			}
			return hosts, nil
		}
		if br.Buffered() >= br.Size() {
			return nil, fmt.Errorf("request head over %d bytes", br.Size())
		}
		if _, err := br.Peek(br.Buffered() + 1); err != nil {
			return nil, err
		}
	}
}

// sameHost compares a Host header with a target, port included when the
// header has one.
func sameHost(header string, t Target) bool {
	h := header
	if !strings.HasSuffix(h, "]") && strings.Contains(h, ":") || strings.Contains(h, "]:") {
		ht, err := ParseAuthority(h)
		return err == nil && ht == t
	}
	ht, err := ParseHost(h)
	return err == nil && ht.Name == t.Name && ht.Addr == t.Addr
}

// forward sends req and every later request on the connection to up, as
// long as each names the same target, and relays the responses.
func (p *Proxy) forward(ev *Event, t Target, conn net.Conn, br *bufio.Reader, up net.Conn, req *http.Request) {
	ubr := bufio.NewReaderSize(up, relayBuf)
	for {
		req.RequestURI = ""
		req.URL.Scheme, req.URL.Host = "", ""
		req.Header.Del("Proxy-Connection")
		req.Header.Del("Proxy-Authorization")
		if !exchange(ev, conn, req, up, ubr) {
			return
		}
		hosts, err := peekHosts(br)
		if err != nil {
			return
		}
		next, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		nt, err := requestTarget(next, hosts)
		if err != nil || nt != t {
			// Another host: the client must open a new connection, which
			// is decided on its own.
			writeStatus(conn, http.StatusForbidden, ReasonHostMatch, "one connection, one host")
			return
		}
		req = next
	}
}

// exchange sends req upstream and relays its response to the client,
// counting both ways; false ends the connection (an error, or either side
// asked to close).
func exchange(ev *Event, conn net.Conn, req *http.Request, up net.Conn, ubr *bufio.Reader) bool {
	if err := writeCounted(req.Write, up, &ev.Up); err != nil {
		return false
	}
	resp, err := http.ReadResponse(ubr, req)
	if err != nil {
		return false
	}
	err = writeResponse(conn, resp, ubr, up, &ev.Down)
	resp.Body.Close()
	return err == nil && !resp.Close && !req.Close
}

// relayHTTP proxies plain HTTP inside a tunnel request by request, each
// Host header checked against the tunnel's target.
func (p *Proxy) relayHTTP(ev *Event, t Target, conn net.Conn, br *bufio.Reader, up net.Conn) {
	ubr := bufio.NewReaderSize(up, relayBuf)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if req.Host == "" || !sameHost(req.Host, t) {
			ev.Verdict, ev.Reason, ev.Why = Deny, ReasonHostMatch, "Host "+strconv.Quote(req.Host)
			writeStatus(conn, http.StatusForbidden, ReasonHostMatch, "")
			return
		}
		if !exchange(ev, conn, req, up, ubr) {
			return
		}
	}
}

// writeStatus writes a short response; reason goes in X-Proxy-Error, the
// header clients and the run's narration read.
func writeStatus(conn net.Conn, code int, reason, why string) {
	body := http.StatusText(code)
	if reason != "" {
		body = "ringfence: " + reason
		if why != "" {
			body += ": " + why
		}
	}
	body += "\n"
	head := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n",
		code, http.StatusText(code), len(body))
	if reason != "" {
		head += "X-Proxy-Error: " + reason + "\r\n"
	}
	conn.Write([]byte(head + "\r\n" + body))
}

// relayBuf sizes the buffers of the plain-HTTP paths: large enough that a
// big body moves in few system calls.
const relayBuf = 64 << 10

// writeCounted writes a request or response through a large buffer,
// adding what reached w to *n.
func writeCounted(write func(io.Writer) error, w io.Writer, n *int64) error {
	cw := &countWriter{w: w}
	bw := bufio.NewWriterSize(cw, relayBuf)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	*n += cw.n
	return err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeResponse relays a response. A large body of known length is copied
// socket to socket after the head with io.Copy, which splices it (no copy
// through this process): for these bodies, read as fast as the client
// can, splice cost less CPU per MB than copyRelay in bench/network.sh
// (727–764 against 781–921 µs/MB for the whole download); anything else
// goes through net/http's writer.
func writeResponse(conn net.Conn, resp *http.Response, ubr *bufio.Reader, up net.Conn, n *int64) error {
	if resp.ContentLength < relayBuf || len(resp.TransferEncoding) > 0 || resp.Request.Method == http.MethodHead {
		return writeCounted(resp.Write, conn, n)
	}
	h := resp.Header.Clone()
	for _, k := range []string{"Content-Length", "Transfer-Encoding", "Connection", "Trailer"} {
		h.Del(k)
	}
	var head bytes.Buffer
	fmt.Fprintf(&head, "HTTP/%d.%d %s\r\n", resp.ProtoMajor, resp.ProtoMinor, resp.Status)
	h.Write(&head)
	fmt.Fprintf(&head, "Content-Length: %d\r\n", resp.ContentLength)
	if resp.Close {
		head.WriteString("Connection: close\r\n")
	}
	head.WriteString("\r\n")
	k, err := conn.Write(head.Bytes())
	*n += int64(k)
	if err != nil {
		return err
	}
	rest := resp.ContentLength
	if b := int64(ubr.Buffered()); b > 0 {
		c, err := io.CopyN(conn, ubr, min(b, rest))
		*n += c
		rest -= c
		if err != nil {
			return err
		}
	}
	c, err := io.Copy(conn, io.LimitReader(up, rest))
	*n += c
	if err == nil && c < rest {
		err = io.ErrUnexpectedEOF
	}
	return err
}
