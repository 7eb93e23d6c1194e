package seccomp

import (
	"encoding/binary"
	"fmt"
)

// data is struct seccomp_data as the kernel hands it to a filter.
type data struct {
	nr   int32
	arch uint32
	ip   uint64
	args [6]uint64
}

func (d data) bytes() []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b[0:], uint32(d.nr))
	binary.LittleEndian.PutUint32(b[4:], d.arch)
	binary.LittleEndian.PutUint64(b[8:], d.ip)
	for i, v := range d.args {
		binary.LittleEndian.PutUint64(b[16+8*i:], v)
	}
	return b
}

// run interprets prog against d the way the kernel's classic BPF does for
// seccomp: 32-bit accumulator, aligned 32-bit absolute loads inside
// seccomp_data, forward jumps only. It returns an error on anything the
// kernel's checker would refuse, so a malformed program fails the test.
func run(prog []SockFilter, d data) (uint32, error) {
	in := d.bytes()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		ins := prog[pc]
		switch ins.Code {
		case bpfLD | bpfW | bpfABS:
			if ins.K%4 != 0 || ins.K+4 > uint32(len(in)) {
				return 0, fmt.Errorf("pc %d: bad load offset %d", pc, ins.K)
			}
			acc = binary.LittleEndian.Uint32(in[ins.K:])
		case bpfJMP | bpfJA:
			pc += int(ins.K)
		case bpfJMP | bpfJEQ | bpfK:
			pc += cond(acc == ins.K, ins)
		case bpfJMP | bpfJGT | bpfK:
			pc += cond(acc > ins.K, ins)
		case bpfJMP | bpfJGE | bpfK:
			pc += cond(acc >= ins.K, ins)
		case bpfJMP | bpfJSET | bpfK:
			pc += cond(acc&ins.K != 0, ins)
		case bpfRET | bpfK:
			return ins.K, nil
		default:
			return 0, fmt.Errorf("pc %d: opcode %#x not supported", pc, ins.Code)
		}
		if pc >= len(prog) {
			return 0, fmt.Errorf("jump past the end at pc %d", pc)
		}
	}
	return 0, fmt.Errorf("fell off the end of the program")
}

func cond(ok bool, ins SockFilter) int {
	if ok {
		return int(ins.Jt)
	}
	return int(ins.Jf)
}
