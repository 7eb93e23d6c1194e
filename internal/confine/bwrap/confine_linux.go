package bwrap

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/internal/confine/domainnet"
	"github.com/ringfence/ringfence/internal/confine/initimage"
	"github.com/ringfence/ringfence/internal/confine/seccomp"
	"github.com/ringfence/ringfence/internal/confine/viewplan"
	"github.com/ringfence/ringfence/policy"
)

// Confine plans the bwrap argv for req and prepares its descriptors: the
// options travel in a memfd (--args), so environment values and host paths
// never appear on a command line other users can read; the status channels
// are pipes read by a goroutine that writes ringfence status records to
// Cmd.Status.
func (p *Provider) Confine(req confine.Request) (*confine.Cmd, error) {
	if err := p.Available(); err != nil {
		return nil, err
	}
	if req.Policy == nil || !req.Policy.Confining() {
		return nil, check(req.Policy, req, ArgOptions{})
	}
	if err := confine.CheckMountPath(req.Policy, req.MountPath); err != nil {
		return nil, err
	}
	o := ArgOptions{Stat: Stat, List: List, ListRoot: List, StatusFD: fdStatus, ShimFD: fdShim, SeccompFD: fdSeccomp,
		SuperviseUnix: p.host.notify && !p.opts.NoSupervise,
		ScratchBytes:  confine.ScratchSize(req.Policy.Limits.ScratchBytes, confine.HostRAM())}
	filter, err := seccompFilter(o.SuperviseUnix)
	if err != nil {
		return nil, err
	}
	// From fdPins on: the file the shim is executed from, the handoff
	// socket under the domains network, the pins, the opened entries.
	image, err := p.shimImage()
	if err != nil {
		return nil, err
	}
	o.Shim = "/proc/self/fd/" + strconv.Itoa(fdPins)
	base := fdPins + 1
	var dom *domainnet.Setup
	fail := func(pins []pin, err error) (*confine.Cmd, error) {
		closePins(pins)
		if dom != nil {
			dom.Close()
		}
		if image != nil {
			image.Close()
		}
		return nil, err
	}
	if domainnet.Needed(req.Policy) {
		if os.Getuid() != 0 {
			return fail(nil, unavailable(domainsNonRoot))
		}
		if dom, err = domainnet.Prepare(req); err != nil {
			return fail(nil, err)
		}
		o.HandoffFD, o.ResolvConf = base, dom.ResolvPath()
		base++
	}
	vp := viewplan.New(req.Policy) // once: the pins, the plan and the entries read it
	pins, err := openPins(vp)
	if err != nil {
		return fail(nil, err)
	}
	o.Pins = map[string]int{}
	for i, pin := range pins {
		o.Pins[pin.dir] = base + i
	}
	o.OpenFDBase = base + len(pins)
	if p.opts.NoExpand {
		o.List = nil
	}
	spec, err := planWith(vp, req, o)
	if err != nil {
		return fail(pins, err)
	}
	entries, err := openEntries(vp, spec.Opens)
	if err != nil {
		return fail(pins, err)
	}
	cmd, err := p.start(spec, req, filter, image, dom, pins, entries)
	if err != nil {
		image = nil           // start closed it
		return fail(nil, err) // start closed the pins and entries
	}
	return cmd, nil
}

// shimImage opens the file bwrap executes as the exec shim: the carried
// image (a sealed memfd, internal/confine/initimage) or, where there is
// none, the running binary (/proc/self/exe: the image this process runs,
// whatever has been renamed over its path since) or Options.Self. bwrap
// inherits it at fdPins and executes /proc/self/fd/<fdPins> in the
// sandbox's own /proc, so the shim never runs from a host path and need
// not be visible in the view.
func (p *Provider) shimImage() (*os.File, error) {
	_, image, err := initimage.ForChild(fdPins)
	if err != nil || image != nil {
		return image, err
	}
	self := "/proc/self/exe"
	if p.opts.Self != "" {
		self = p.host.self
	}
	f, err := os.Open(self)
	if err != nil {
		return nil, fmt.Errorf("bwrap: opening the exec shim's binary: %w", err)
	}
	return f, nil
}

// domainsNonRoot is why the domains network is refused to a user other
// than root: bwrap run by one nests the sandbox in a second user
// namespace (to mount /dev/pts with uid 0 mapped, then map the user back),
// and from there the exec shim's capabilities do not reach the network
// namespace, owned by the first: it could neither route lo nor bind the
// DNS stub and capture ports. Refused, never run with a network that
// would quietly not be there.
const domainsNonRoot = "--network domains under bwrap needs ringfence run as root (bwrap nests an ordinary user's sandbox in a second user namespace, from which the network cannot be set up); the linux backend runs it for every user"

func (p *Provider) start(spec Spec, req confine.Request, filter []byte, image *os.File, dom *domainnet.Setup, pins []pin, entries []*os.File) (*confine.Cmd, error) {
	f := &files{pins: []*os.File{image}} // fdPins: the shim's image
	if dom != nil {
		f.pins = append(f.pins, dom.InitFile()) // the handoff socket
	}
	for _, pin := range pins {
		f.pins = append(f.pins, pin.f)
	}
	f.pins = append(f.pins, entries...) // numbered on from the pins: OpenFDBase
	if err := f.open(spec, filter); err != nil {
		f.closeAll()
		return nil, err
	}
	go translate(f.statusR, f.shimR, f.outW)
	args := append([]string{p.host.path, "--args", strconv.Itoa(fdArgs)}, spec.Args[spec.Split:]...)
	cmd := &confine.Cmd{
		Path:        p.host.path,
		Args:        args,
		Env:         []string{},
		Dir:         "/",
		ExtraFiles:  append([]*os.File{f.args, f.statusW, f.shimW, f.seccomp}, f.pins...),
		Status:      f.outR,
		Backend:     Name,
		Enforcement: spec.Enforcement,
		Dialect:     Dialect(),
		TreeKill:    confine.KillPidNamespace,
		Cleanup:     f.closeParent,
	}
	if dom != nil {
		// The same supervisor half as the linux backend: serving from the
		// start, decisions collected at cleanup.
		dom.Attach(cmd)
	}
	return cmd, nil
}

// seccompFilter compiles the base filter (no unix-socket supervision: that
// needs a user-notification listener bwrap does not hand back) as the raw
// sock_filter array bwrap's --seccomp reads.
//
// When the shim supervises, chmod with S_ISGID is left to its filter,
// whose supervisor allows it on directories only; this one would
// otherwise refuse it everywhere (filters stack, the stricter wins).
func seccompFilter(shimSupervises bool) ([]byte, error) {
	prog, err := seccomp.Build(seccomp.Options{LeaveSetGID: shimSupervises})
	if err != nil {
		return nil, fmt.Errorf("bwrap: seccomp filter: %w", err)
	}
	b := make([]byte, 0, 8*len(prog))
	for _, ins := range prog {
		b = binary.NativeEndian.AppendUint16(b, ins.Code)
		b = append(b, ins.Jt, ins.Jf)
		b = binary.NativeEndian.AppendUint32(b, ins.K)
	}
	return b, nil
}

// files are the descriptors of one invocation.
type files struct {
	pins                     []*os.File // fdPins, fdPins+1, …: image, handoff, pins, then Spec.Opens
	args, seccomp            *os.File
	statusR, statusW         *os.File
	shimR, shimW, outR, outW *os.File
}

func (f *files) open(spec Spec, filter []byte) error {
	var err error
	opts := strings.Join(spec.Args[:spec.Split], "\x00") + "\x00"
	if f.args, err = memfd("ringfence-bwrap-args", []byte(opts)); err != nil {
		return err
	}
	if f.seccomp, err = memfd("ringfence-bwrap-seccomp", filter); err != nil {
		return err
	}
	if f.statusR, f.statusW, err = os.Pipe(); err != nil {
		return err
	}
	if f.shimR, f.shimW, err = os.Pipe(); err != nil {
		return err
	}
	f.outR, f.outW, err = os.Pipe()
	return err
}

// closeParent closes what the parent keeps of the child's descriptors (the
// supervisor may already have), which is what lets the translator see EOF
// even if the command was never started. The read ends belong to the
// translator and the supervisor.
func (f *files) closeParent() {
	for _, x := range append([]*os.File{f.args, f.seccomp, f.statusW, f.shimW}, f.pins...) {
		if x != nil {
			_ = x.Close()
		}
	}
}

func (f *files) closeAll() {
	f.closeParent()
	for _, x := range []*os.File{f.statusR, f.shimR, f.outR, f.outW} {
		if x != nil {
			_ = x.Close()
		}
	}
}

// memfd holds data in an anonymous file, positioned at its start: nothing
// is written to the host's filesystem.
func memfd(name string, data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("%w: memfd_create: %v", policy.ErrUnavailable, err)
	}
	f := os.NewFile(uintptr(fd), name)
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return nil, err
	}
	_, err = f.Seek(0, 0)
	return f, err
}
