package seccomp

import "testing"

// TestSyscallTables checks the compiled-in numbers against a complete
// third-party table, and that every name the filter uses is present on
// each architecture unless declared optional there.
func TestSyscallTables(t *testing.T) {
	for goarch, tgt := range targets {
		ref := reference[goarch]
		if tgt.audit != uint32(ref.ID) {
			t.Errorf("%s: audit arch %#x, want %#x", goarch, tgt.audit, uint32(ref.ID))
		}
		for name, nr := range tgt.table {
			if want, ok := ref.SyscallNames[name]; !ok || want != nr {
				t.Errorf("%s %s: ours %d, reference %d (present %v)", goarch, name, nr, want, ok)
			}
		}
		for _, e := range entries(Options{DenyUnixConnect: true, GuardCreate: true}) {
			_, ours := tgt.table[e.name]
			_, theirs := ref.SyscallNames[e.name]
			if ours != theirs || (!ours && !tgt.optional[e.name]) {
				t.Errorf("%s %s: in our table %v, in the reference %v, optional %v", goarch, e.name, ours, theirs, tgt.optional[e.name])
			}
		}
	}
}
