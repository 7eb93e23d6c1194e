package initproc

import (
	"path"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sampleMountinfo = `22 1 8:1 / / rw,relatime - ext4 /dev/vda rw
30 22 0:5 / /home/u/data rw - ext4 /dev/vdb rw
31 30 0:6 / /home/u/data/inner rw - tmpfs tmpfs rw
32 22 0:7 / /home/u/my\040disk rw - ext4 /dev/vdc rw
33 22 0:8 / /home/uu rw - ext4 /dev/vdd rw
34 22 0:9 / /home/u rw - ext4 /dev/vde rw
35 22 0:10 / /home/u/data rw - ext4 /dev/vdf rw
bad line
36 22 0:11 / relative rw - ext4 x rw
`

func TestSubmountsUnder(t *testing.T) {
	got := SubmountsUnder(sampleMountinfo, "/home/u")
	want := []string{"/home/u/data", "/home/u/my disk"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if got := SubmountsUnder(sampleMountinfo, "/home/u/data/inner"); got != nil {
		t.Fatalf("nothing is under a leaf mount: %v", got)
	}
	if got := unescapeMount(`a\134b\011c\777d\04`); got != "a\\b\tc\\777d\\04" {
		t.Fatalf("unescape: %q", got)
	}
}

func FuzzSubmountsUnder(f *testing.F) {
	f.Add(sampleMountinfo, "/home/u")
	f.Fuzz(func(t *testing.T, info, dir string) {
		if !strings.HasPrefix(dir, "/") {
			return
		}
		dir = path.Clean(dir)
		for _, mp := range SubmountsUnder(info, dir) {
			if !strings.HasPrefix(mp, strings.TrimSuffix(dir, "/")+"/") || mp == dir {
				t.Fatalf("%q is not strictly under %q", mp, dir)
			}
		}
	})
}
