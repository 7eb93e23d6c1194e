package confine_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ringfence/ringfence/internal/confine"
	"github.com/ringfence/ringfence/policy"
)

// fake is a provider whose availability and result are set by the test; it
// counts Confine calls so a test can prove an unavailable one was never used.
type fake struct {
	name   string
	avail  error
	nilCmd bool
	calls  int
}

func (f *fake) Name() string { return f.name }
func (f *fake) Traits() confine.Traits {
	return confine.Traits{Namespaces: f.name == "linux", Scratch: confine.Scratch("of " + f.name)}
}
func (f *fake) Available() error { return f.avail }
func (f *fake) Confine(confine.Request) (*confine.Cmd, error) {
	f.calls++
	if f.nilCmd {
		return nil, nil
	}
	return &confine.Cmd{Backend: f.name, Path: "/" + f.name}, nil
}

func req(mode policy.Mode) confine.Request {
	return confine.Request{Argv: []string{"true"}, Policy: &policy.Policy{Mode: mode, Root: "/w"}}
}

func TestAutoPicksFirstAvailable(t *testing.T) {
	tests := []struct {
		name      string
		providers []*fake
		want      string   // backend used, "" for an error
		tried     []string // UnavailableError.Tried when want == ""
		reasons   []string
	}{
		{"first", []*fake{{name: "linux"}, {name: "bwrap"}}, "linux", nil, nil},
		{"skips unavailable", []*fake{{name: "linux", avail: errors.New("no userns")}, {name: "bwrap"}}, "bwrap", nil, nil},
		{"none", []*fake{{name: "linux", avail: errors.New("no userns")}, {name: "bwrap", avail: errors.New("not installed")}},
			"", []string{"linux", "bwrap"}, []string{"no userns", "not installed"}},
		{"empty chain", nil, "", []string{"auto"}, []string{"no backend is built for this platform"}},
		{"nil cmd is not trusted", []*fake{{name: "linux", nilCmd: true}}, "", []string{"linux"}, []string{"returned no command"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ps []confine.Provider
			for _, f := range tt.providers {
				ps = append(ps, f)
			}
			cmd, err := confine.Auto(ps...).Confine(req(policy.WorkspaceWrite))
			if tt.want != "" {
				if err != nil || cmd.Backend != tt.want {
					t.Fatalf("Confine = %v, %v; want backend %s", cmd, err, tt.want)
				}
				return
			}
			checkUnavailable(t, cmd, err, tt.tried, tt.reasons)
			for _, f := range tt.providers {
				if f.avail != nil && f.calls != 0 {
					t.Errorf("unavailable %s was asked to confine", f.name)
				}
			}
		})
	}
}

func checkUnavailable(t *testing.T, cmd *confine.Cmd, err error, tried, reasons []string) {
	t.Helper()
	if cmd != nil {
		t.Fatalf("got a command %+v with an unavailable chain", cmd)
	}
	var u *confine.UnavailableError
	if !errors.As(err, &u) || !errors.Is(err, policy.ErrUnavailable) {
		t.Fatalf("err = %v, want *UnavailableError wrapping ErrUnavailable", err)
	}
	if diff := cmp.Diff(tried, u.Tried); diff != "" {
		t.Errorf("Tried (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(reasons, u.Reasons); diff != "" {
		t.Errorf("Reasons (-want +got):\n%s", diff)
	}
}

func TestDangerFullAccessIsNotConfined(t *testing.T) {
	f := &fake{name: "linux"}
	for _, p := range []confine.Provider{confine.Auto(f), mustSelect(t, "linux", f)} {
		cmd, err := p.Confine(req(policy.DangerFullAccess))
		if cmd != nil || !errors.Is(err, confine.ErrNotConfining) {
			t.Errorf("%s: Confine(danger) = %v, %v; want ErrNotConfining", p.Name(), cmd, err)
		}
	}
	if f.calls != 0 {
		t.Error("a provider was asked to confine danger-full-access")
	}
	if _, err := confine.Auto(f).Confine(confine.Request{}); !errors.Is(err, policy.ErrPolicy) {
		t.Errorf("nil policy: err = %v, want ErrPolicy", err)
	}
}

func mustSelect(t *testing.T, name string, ps ...confine.Provider) confine.Provider {
	t.Helper()
	p, err := confine.Select(name, ps...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSelect(t *testing.T) {
	linux := &fake{name: "linux", avail: errors.New("user namespaces are disabled")}
	bwrap := &fake{name: "bwrap"}
	ps := []confine.Provider{linux, bwrap}

	for _, name := range []string{"", "auto"} {
		p := mustSelect(t, name, ps...)
		if cmd, err := p.Confine(req(policy.ReadOnly)); err != nil || cmd.Backend != "bwrap" || p.Name() != "auto" {
			t.Errorf("Select(%q) confined with %v, %v (name %s)", name, cmd, err, p.Name())
		}
	}
	if p := mustSelect(t, "bwrap", ps...); p.Name() != "bwrap" {
		t.Errorf("Select(bwrap).Name() = %s", p.Name())
	}
	// A named backend that is unavailable never falls back to another.
	p, err := confine.Select("linux", ps...)
	if p != nil {
		t.Fatalf("Select(linux) returned %s although linux is unavailable", p.Name())
	}
	checkUnavailable(t, nil, err, []string{"linux"}, []string{"user namespaces are disabled"})
	if _, err := confine.Select("seatbelt", ps...); !errors.Is(err, policy.ErrPolicy) {
		t.Errorf("unknown backend: err = %v, want ErrPolicy", err)
	}
	if linux.calls != 0 {
		t.Error("the unavailable backend was asked to confine")
	}
}

func TestAvailable(t *testing.T) {
	down := &fake{name: "linux", avail: errors.New("no")}
	if err := confine.Auto(down).Available(); !errors.Is(err, policy.ErrUnavailable) {
		t.Errorf("Available() = %v, want ErrUnavailable", err)
	}
	if err := confine.Auto(down, &fake{name: "bwrap"}).Available(); err != nil {
		t.Errorf("Available() = %v, want nil", err)
	}
	// A provider reporting its own UnavailableError is not quoted twice.
	nested := &fake{name: "bwrap", avail: &confine.UnavailableError{Tried: []string{"bwrap"}, Reasons: []string{"not on PATH"}}}
	_, err := confine.Auto(nested).Confine(req(policy.ReadOnly))
	checkUnavailable(t, nil, err, []string{"bwrap"}, []string{"not on PATH"})
}

func TestSelectedNamesTheBackendAutoPicks(t *testing.T) {
	weak, strong := &fake{name: "weak"}, &fake{name: "strong", avail: errors.New("no")}
	p, err := confine.Selected(confine.Auto(strong, weak))
	if err != nil || p.Name() != "weak" {
		t.Fatalf("Selected(auto) = %v, %v; want the first usable (weak)", p, err)
	}
	if _, err := confine.Selected(confine.Auto(strong)); err == nil {
		t.Fatal("Selected(auto) with nothing usable: no error")
	}
	if p, err := confine.Selected(weak); err != nil || p != confine.Provider(weak) {
		t.Fatalf("Selected(weak) = %v, %v", p, err)
	}
}
