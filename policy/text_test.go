package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

type textForm interface {
	MarshalText() ([]byte, error)
	String() string
}

func TestTextFormsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		v    textForm
		want string
		back func(string) (textForm, error)
	}{
		{ReadOnly, "read-only", func(s string) (textForm, error) { return ParseMode(s) }},
		{WorkspaceWrite, "workspace-write", func(s string) (textForm, error) { return ParseMode(s) }},
		{DangerFullAccess, "danger-full-access", func(s string) (textForm, error) { return ParseMode(s) }},
		{Deny, "deny", func(s string) (textForm, error) { return ParseAccess(s) }},
		{Read, "read", func(s string) (textForm, error) { return ParseAccess(s) }},
		{Write, "write", func(s string) (textForm, error) { return ParseAccess(s) }},
		{FromMode, "mode", func(s string) (textForm, error) { return ParseOrigin(s) }},
		{FromProtected, "protected", func(s string) (textForm, error) { return ParseOrigin(s) }},
		{FromDeployment, "deployment", func(s string) (textForm, error) { return ParseOrigin(s) }},
		{FromRequest, "request", func(s string) (textForm, error) { return ParseOrigin(s) }},
		{FromApproval, "approval", func(s string) (textForm, error) { return ParseOrigin(s) }},
		{NetDeny, "deny", func(s string) (textForm, error) { return ParseNetworkMode(s) }},
		{NetLoopback, "loopback", func(s string) (textForm, error) { return ParseNetworkMode(s) }},
		{NetDomains, "domains", func(s string) (textForm, error) { return ParseNetworkMode(s) }},
		{NetAllowAll, "allow-all", func(s string) (textForm, error) { return ParseNetworkMode(s) }},
		{SingleCall, "single-call", nil},
		{Session, "session", nil},
	} {
		b, err := tc.v.MarshalText()
		if err != nil || string(b) != tc.want || tc.v.String() != tc.want {
			t.Errorf("%v: MarshalText = %q, %v; String = %q; want %q", tc.v, b, err, tc.v.String(), tc.want)
		}
		if tc.back != nil {
			if got, err := tc.back(tc.want); err != nil || got != tc.v {
				t.Errorf("parse %q = %v, %v", tc.want, got, err)
			}
		}
	}
}

func TestParseErrorsListValidValues(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(ParseMode("workspace_write")), `invalid mode "workspace_write": want one of read-only, workspace-write, danger-full-access`},
		{second(ParseAccess("rw")), `invalid access "rw": want one of deny, read, write`},
		{second(ParseOrigin("")), `invalid origin: want one of mode, protected, deployment, request, approval`},
		{second(ParseNetworkMode("all")), `invalid network "all": want one of deny, loopback, domains, allow-all`},
	} {
		if tc.err == nil || !strings.HasSuffix(tc.err.Error(), tc.want) || !errors.Is(tc.err, ErrPolicy) {
			t.Errorf("error %v, want suffix %q wrapping ErrPolicy", tc.err, tc.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestOutOfRangeValuesDoNotMarshal(t *testing.T) {
	for _, v := range []textForm{Mode(3), Access(-1), Origin(9), NetworkMode(4), Scope(2)} {
		if _, err := v.MarshalText(); !errors.Is(err, ErrPolicy) {
			t.Errorf("%v: MarshalText error %v, want ErrPolicy", v, err)
		}
		if !strings.Contains(v.String(), "(") {
			t.Errorf("out-of-range String %q looks valid", v.String())
		}
	}
}

func TestJSONUsesNames(t *testing.T) {
	b, err := json.Marshal(Layer{Path: "/a", Access: Write, Origin: FromApproval})
	if err != nil || string(b) != `{"path":"/a","access":"write","origin":"approval"}` {
		t.Fatalf("got %s, %v", b, err)
	}
	var n Network
	if err := json.Unmarshal([]byte(`{"mode":"domains","domains":["x.org"]}`), &n); err != nil || n.Mode != NetDomains {
		t.Fatalf("got %+v, %v", n, err)
	}
	if err := json.Unmarshal([]byte(`{"mode":"everything"}`), &n); !errors.Is(err, ErrPolicy) {
		t.Fatalf("bad mode decoded: %v", err)
	}
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1048576", 1 << 20, true}, {"512M", 512 << 20, true}, {"512m", 512 << 20, true},
		{"2G", 2 << 30, true}, {"2GiB", 2 << 30, true}, {"64kb", 64 << 10, true}, {"1T", 1 << 40, true},
		{" 3K ", 3 << 10, true}, {"10B", 10, true},
		{"", 0, false}, {"M", 0, false}, {"-1M", 0, false}, {"1.5G", 0, false}, {"+1", 0, false},
		{"9999999999T", 0, false}, {"12X", 0, false}, {"9223372036854775808", 0, false},
	} {
		got, err := ParseSize(tc.in)
		if tc.ok != (err == nil) || (tc.ok && got != tc.want) {
			t.Errorf("ParseSize(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrPolicy) {
			t.Errorf("ParseSize(%q) error %v is not ErrPolicy", tc.in, err)
		}
	}
	for _, n := range []int64{0, 1, 1023, 1024, 512 << 20, 3 << 30, 5<<40 + 1} {
		if back, err := ParseSize(FormatSize(n)); err != nil || back != n {
			t.Errorf("FormatSize(%d) = %q does not round-trip: %d, %v", n, FormatSize(n), back, err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30s", 30 * time.Second, true}, {"1h30m", 90 * time.Minute, true}, {"0s", 0, true},
		{"30", 0, false}, {"-1s", 0, false}, {"soon", 0, false}, {"", 0, false},
	} {
		got, err := ParseDuration(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestGitProtectionText(t *testing.T) {
	for in, want := range map[string]GitProtection{"": GitDefault, "default": GitDefault, "read-only": GitReadOnly, "writable": GitWritable} {
		var g GitProtection
		if err := g.UnmarshalText([]byte(in)); err != nil || g != want {
			t.Errorf("%q: %q, %v", in, g, err)
		}
	}
	var g GitProtection
	if err := g.UnmarshalText([]byte("off")); !errors.Is(err, ErrPolicy) {
		t.Errorf("off accepted: %v", err)
	}
}
