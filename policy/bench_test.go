package policy

import "testing"

func BenchmarkResolveWorkspaceWrite(b *testing.B) {
	d := wsDefaults()
	d.Entries = []Entry{{Path: "/home/u/.ssh", Access: Deny}, {Path: "/repo/vendor", Access: Read}}
	req := Request{Entries: []Entry{{Path: "/repo/secret", Access: Deny}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Resolve(req, d); err != nil {
			b.Fatal(err)
		}
	}
}
