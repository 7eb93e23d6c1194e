package seccomp

import (
	"fmt"
)

// seccomp_data offsets (include/uapi/linux/seccomp.h). Both supported
// architectures are little-endian, so an argument's low 32-bit word comes
// first and its high word 4 bytes later.
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

func argLow(i int) uint32  { return uint32(offArgs + 8*i) }
func argHigh(i int) uint32 { return argLow(i) + 4 }

// Classic BPF opcodes, spelled out once so the program reads like the
// listing in doc.go.
const (
	opLdAbs   = bpfLD | bpfW | bpfABS
	opJeq     = bpfJMP | bpfJEQ | bpfK
	opJset    = bpfJMP | bpfJSET | bpfK
	opRet     = bpfRET | bpfK
	maxJumpTo = 255 // jt/jf are 8-bit forward offsets
)

// asm is a tiny forward-only assembler: conditional jumps name a label that
// is placed later, and offsets are resolved once the program is complete.
// Only the instructions the filter needs exist, which keeps every program
// this package emits inside what the kernel's constant-action cache (Linux
// 5.11+) can evaluate for syscalls whose verdict does not depend on
// arguments: those then cost nothing per call.
type asm struct {
	prog   []SockFilter
	labels map[string]int
	fixups []fixup
}

type fixup struct {
	at     int
	jt, jf string // "" means fall through
}

func newAsm() *asm { return &asm{labels: map[string]int{}} }

func (a *asm) emit(code uint16, k uint32) {
	a.prog = append(a.prog, SockFilter{Code: code, K: k})
}

func (a *asm) load(off uint32)   { a.emit(opLdAbs, off) }
func (a *asm) ret(action uint32) { a.emit(opRet, action) }

// jump emits a conditional jump: to jt when the test holds, else to jf.
func (a *asm) jump(op uint16, k uint32, jt, jf string) {
	a.fixups = append(a.fixups, fixup{at: len(a.prog), jt: jt, jf: jf})
	a.emit(op, k)
}

func (a *asm) label(name string) {
	if _, dup := a.labels[name]; dup {
		panic("seccomp: duplicate label " + name) // a bug in this package
	}
	a.labels[name] = len(a.prog)
}

// assemble resolves the labels and returns the finished program.
func (a *asm) assemble() ([]SockFilter, error) {
	for _, f := range a.fixups {
		jt, err := a.offset(f.at, f.jt)
		if err != nil {
			return nil, err
		}
		jf, err := a.offset(f.at, f.jf)
		if err != nil {
			return nil, err
		}
		a.prog[f.at].Jt, a.prog[f.at].Jf = jt, jf
	}
	if len(a.prog) > bpfMaxInsns {
		return nil, fmt.Errorf("seccomp: program of %d instructions exceeds %d", len(a.prog), bpfMaxInsns)
	}
	return a.prog, nil
}

func (a *asm) offset(from int, label string) (uint8, error) {
	if label == "" {
		return 0, nil
	}
	to, ok := a.labels[label]
	if !ok {
		return 0, fmt.Errorf("seccomp: undefined label %q", label)
	}
	d := to - from - 1
	if d < 0 || d > maxJumpTo {
		return 0, fmt.Errorf("seccomp: jump to %q out of range (%d)", label, d)
	}
	return uint8(d), nil
}
