package linux

import (
	"reflect"
	"testing"
)

// TestNextStep: only the refusals a container's runtime explains lead to a
// step given up, each once; anything else leaves the backend unavailable.
func TestNextStep(t *testing.T) {
	for _, c := range []struct {
		name         string
		d            Degraded
		stage, errno string
		want         Degraded
		ok           bool
	}{
		{"masked /proc", Degraded{}, "mounts", "EPERM", Degraded{HostProc: true}, true},
		{"masked /proc again: no further step", Degraded{HostProc: true}, "mounts", "EPERM", Degraded{}, false},
		{"hostname after /proc", Degraded{HostProc: true}, "uts", "EPERM", Degraded{HostProc: true, NoHostname: true}, true},
		{"hostname again", Degraded{NoHostname: true}, "uts", "EPERM", Degraded{}, false},
		{"other mount error", Degraded{}, "mounts", "EINVAL", Degraded{}, false},
		{"namespaces refused (no stage)", Degraded{}, "", "", Degraded{}, false},
		{"landlock", Degraded{}, "landlock", "EPERM", Degraded{}, false},
	} {
		got, ok := nextStep(c.d, c.stage, c.errno)
		if ok != c.ok || (ok && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("%s: nextStep = %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestDegradedReasons(t *testing.T) {
	if r := (Degraded{}).Reasons(); len(r) != 0 {
		t.Errorf("no step left out, reasons %v", r)
	}
	r := Degraded{HostProc: true, NoHostname: true}.Reasons()
	if len(r) != 2 || r[0] != HostProcReason || r[1] != NoHostnameReason {
		t.Errorf("reasons %v", r)
	}
}
