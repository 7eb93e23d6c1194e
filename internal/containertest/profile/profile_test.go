package profile

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNoNamespaces(t *testing.T) {
	base := `{"defaultAction":"SCMP_ACT_ERRNO","syscalls":[
		{"names":["read","clone","unshare"],"action":"SCMP_ACT_ALLOW"},
		{"names":["setns","clone3"],"action":"SCMP_ACT_ALLOW"},
		{"names":["write"],"action":"SCMP_ACT_ALLOW"}]}`
	out, err := NoNamespaces([]byte(base))
	if err != nil {
		t.Fatal(err)
	}
	var prof struct {
		Default  string `json:"defaultAction"`
		Syscalls []struct {
			Names  []string `json:"names"`
			Action string   `json:"action"`
			Errno  int      `json:"errnoRet"`
			Args   []struct {
				Value uint64 `json:"value"`
				Op    string `json:"op"`
			} `json:"args"`
		} `json:"syscalls"`
	}
	if err := json.Unmarshal(out, &prof); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range prof.Syscalls {
		s := strings.Join(r.Names, "+") + ":" + r.Action
		if r.Errno != 0 {
			s += ":" + map[int]string{1: "EPERM", 38: "ENOSYS"}[r.Errno]
		}
		for _, a := range r.Args {
			s += ":" + a.Op
		}
		got = append(got, s)
	}
	want := "read:SCMP_ACT_ALLOW write:SCMP_ACT_ALLOW clone:SCMP_ACT_ALLOW:SCMP_CMP_MASKED_EQ " +
		"clone3:SCMP_ACT_ERRNO:ENOSYS unshare+setns:SCMP_ACT_ERRNO:EPERM"
	if strings.Join(got, " ") != want || prof.Default != "SCMP_ACT_ERRNO" {
		t.Fatalf("got %q (default %s)\nwant %q", strings.Join(got, " "), prof.Default, want)
	}
	if prof.Syscalls[2].Args[0].Value != cloneNewMask {
		t.Fatalf("clone mask %#x", prof.Syscalls[2].Args[0].Value)
	}
	for _, bad := range []string{`[]`, `{"syscalls":{}}`, `{"syscalls":[1]}`, `nope`} {
		if _, err := NoNamespaces([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
