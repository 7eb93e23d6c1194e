package sandboxnet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"runtime/debug"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/netproxy/netrule"
)

// Serve sets up the in-namespace side of the domains network (see Spec)
// in the calling process's network namespace, handing every accepted
// connection over on handoff (the caller's end of the socket pair; Serve
// keeps it open for the listeners). It must run while the caller still
// holds the namespace's CAP_NET_ADMIN (the routes) and
// CAP_NET_BIND_SERVICE (ports below 1024); the listeners then serve from
// goroutines, which need no capability once privileges are dropped. Both
// the linux backend's init and the bwrap backend's exec shim call it, each
// as the sandbox's pid 1 before the command exists.
func Serve(spec Spec, handoff *os.File) error {
	// The init runs with GOGC=off to stay small; serving connections for
	// the whole run allocates, so a soft limit makes the collector run.
	debug.SetMemoryLimit(32 << 20)
	if err := LoopbackUp(); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	if err := localDefaultRoutes(); err != nil {
		return fmt.Errorf("local default routes on lo: %w", err)
	}
	sock := handoff
	var st unix.Stat_t
	if handoff == nil || unix.Fstat(int(handoff.Fd()), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return errors.New("no handoff socket")
	}
	table := netrule.NewFakeTable()
	loopback := netip.AddrFrom4([4]byte{127, 0, 0, 1})
	type listen struct {
		addr netip.AddrPort // 0.0.0.0: every address, IPv4 and IPv6
		kind netrule.Kind
	}
	ls := []listen{
		{netip.AddrPortFrom(loopback, netrule.HTTPPort), netrule.KindHTTP},
		{netip.AddrPortFrom(loopback, netrule.SOCKSPort), netrule.KindSOCKS5},
	}
	ports := spec.CapturePorts
	if len(ports) == 0 {
		ports = netrule.CapturePorts
	}
	for _, p := range ports {
		ls = append(ls, listen{netip.AddrPortFrom(netip.IPv4Unspecified(), p), netrule.KindCaptured})
	}
	var opened []*pollSock
	for _, l := range ls {
		ln, err := listenTCP(l.addr)
		if err != nil {
			for _, o := range opened {
				o.Close()
			}
			return fmt.Errorf("listening on %s: %w", l.addr, err)
		}
		opened = append(opened, ln)
		go acceptLoop(ln, l.kind, sock, table)
	}
	dns := netip.AddrPortFrom(loopback, netrule.DNSPort)
	udp, err := listenUDP(dns)
	if err != nil {
		return fmt.Errorf("DNS stub: %w", err)
	}
	tcp, err := listenTCP(dns)
	if err != nil {
		return fmt.Errorf("DNS stub: %w", err)
	}
	go serveDNSUDP(udp, table)
	go serveDNSTCP(tcp, table)
	return nil
}

// acceptLoop hands every accepted connection to the supervisor: the header
// (for a captured one, the destination the command connected to, mapped
// back to its name when the stub gave that address out) and the socket.
func acceptLoop(ln *pollSock, kind netrule.Kind, sock *os.File, table *netrule.FakeTable) {
	for {
		fd, err := ln.accept()
		if err != nil {
			if retryable(err) {
				continue
			}
			return
		}
		h := netrule.Handoff{Kind: kind}
		if kind == netrule.KindCaptured {
			ap, err := localAddr(fd)
			if err != nil {
				unix.Close(fd)
				continue
			}
			h.Host, h.Port = netrule.CapturedHost(ap.Addr(), table), ap.Port()
		}
		// A failed send (the supervisor gone) closes the socket: the
		// command sees a reset, never an unproxied connection.
		_ = netrule.Send(sock, h, fd)
		unix.Close(fd)
	}
}

func serveDNSUDP(pc *pollSock, table *netrule.FakeTable) {
	buf := make([]byte, 4096)
	for {
		n, from, err := pc.recvFrom(buf)
		if err != nil {
			if retryable(err) {
				continue
			}
			return
		}
		if r := netrule.AnswerDNS(buf[:n], table); r != nil {
			pc.sendTo(r, from)
		}
	}
}

// maxDNSConns bounds the TCP DNS connections served at once.
const maxDNSConns = 32

func serveDNSTCP(ln *pollSock, table *netrule.FakeTable) {
	sem := make(chan struct{}, maxDNSConns)
	for {
		fd, err := ln.accept()
		if err != nil {
			if retryable(err) {
				continue
			}
			return
		}
		select {
		case sem <- struct{}{}:
		default:
			unix.Close(fd)
			continue
		}
		go func() {
			defer func() { <-sem }()
			c := osFile(fd)
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			for range 16 {
				var l [2]byte
				if _, err := io.ReadFull(c, l[:]); err != nil {
					return
				}
				q := make([]byte, binary.BigEndian.Uint16(l[:]))
				if _, err := io.ReadFull(c, q); err != nil {
					return
				}
				r := netrule.AnswerDNS(q, table)
				if r == nil {
					return
				}
				out := binary.BigEndian.AppendUint16(nil, uint16(len(r)))
				if _, err := c.Write(append(out, r...)); err != nil {
					return
				}
			}
		}()
	}
}

// localDefaultRoutes adds `local` default routes on lo (0.0.0.0/0 and
// ::/0): every destination is this namespace's own, so a connect to any
// address lands on the capture listeners (or is refused at once), and no
// packet can be routed anywhere else — there is no other interface.
func localDefaultRoutes() error {
	lo, err := loIndex()
	if err != nil {
		return err
	}
	if err := addLocalRoute(unix.AF_INET, lo); err != nil {
		return err
	}
	// IPv6 may be disabled in this namespace; then no IPv6 socket can
	// connect anywhere at all, which is as closed as the route.
	if err := addLocalRoute(unix.AF_INET6, lo); err != nil && !ipv6Off() {
		return err
	}
	return nil
}

// loIndex is lo's interface index (SIOCGIFINDEX).
func loIndex() (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return 0, err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFINDEX, ifr); err != nil {
		return 0, fmt.Errorf("lo's index: %w", err)
	}
	return int(ifr.Uint32()), nil
}

func ipv6Off() bool {
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return true
	}
	unix.Close(fd)
	data, err := os.ReadFile("/proc/sys/net/ipv6/conf/lo/disable_ipv6")
	return err == nil && len(data) > 0 && data[0] == '1'
}

// addLocalRoute sends RTM_NEWROUTE: type RTN_LOCAL, destination the whole
// family (prefix length 0), out of ifindex, table main, and waits for the
// kernel's acknowledgement.
func addLocalRoute(family, ifindex int) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	msg := make([]byte, 0, 64)
	msg = binary.NativeEndian.AppendUint32(msg, 0) // length, filled below
	msg = binary.NativeEndian.AppendUint16(msg, unix.RTM_NEWROUTE)
	msg = binary.NativeEndian.AppendUint16(msg, unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	msg = binary.NativeEndian.AppendUint32(msg, 1) // seq
	msg = binary.NativeEndian.AppendUint32(msg, 0) // pid: the kernel
	// struct rtmsg
	msg = append(msg, byte(family), 0, 0, 0, unix.RT_TABLE_MAIN, unix.RTPROT_BOOT, unix.RT_SCOPE_HOST, unix.RTN_LOCAL)
	msg = binary.NativeEndian.AppendUint32(msg, 0) // rtm_flags
	// RTA_OIF
	msg = binary.NativeEndian.AppendUint16(msg, 8)
	msg = binary.NativeEndian.AppendUint16(msg, unix.RTA_OIF)
	msg = binary.NativeEndian.AppendUint32(msg, uint32(ifindex))
	binary.NativeEndian.PutUint32(msg[0:4], uint32(len(msg)))
	if err := unix.Sendto(fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if m.Header.Type == unix.NLMSG_ERROR && len(m.Data) >= 4 {
			if code := int32(binary.NativeEndian.Uint32(m.Data[:4])); code != 0 {
				return unix.Errno(-code)
			}
			return nil
		}
	}
	return errors.New("no acknowledgement from the kernel")
}

// retryable: a listener that is closed is done; anything else (out of
// descriptors, a connection reset before it was accepted) passes, after a
// pause so a persistent error cannot spin.
func retryable(err error) bool {
	if errors.Is(err, errClosed) {
		return false
	}
	time.Sleep(10 * time.Millisecond)
	return true
}

// LoopbackUp brings "lo" up in the caller's network namespace, so the
// command has a loopback of its own and nothing else.
func LoopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
