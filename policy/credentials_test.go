package policy

import "testing"

func TestCredentialEntries(t *testing.T) {
	have := map[string]bool{"/home/u/.ssh": true, "/home/u/.aws": true, "/home/u/.netrc": true}
	got := CredentialEntries("/home/u/", func(p string) bool { return have[p] })
	if len(got) != 3 {
		t.Fatalf("entries %v", got)
	}
	for _, e := range got {
		if e.Access != Deny || !have[e.Path] {
			t.Errorf("entry %+v", e)
		}
	}
	for _, home := range []string{"", "/", "relative"} {
		if got := CredentialEntries(home, func(string) bool { return true }); got != nil {
			t.Errorf("home %q: %v", home, got)
		}
	}
}
