package files

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ringfence/ringfence/internal/sandboxd/wire"
	"github.com/ringfence/ringfence/internal/workspace"
	"github.com/ringfence/ringfence/outcome"
)

func TestStatusOf(t *testing.T) {
	for _, tc := range []struct {
		method string
		o      outcome.Outcome
		status int
		code   string
	}{
		{"GET", outcome.Outcome{Kind: outcome.OK}, 200, ""},
		{"GET", outcome.Outcome{Kind: outcome.ScopeLimited}, 200, ""},
		{"GET", outcome.Outcome{Kind: outcome.NotFound}, 404, CodeNotFound},
		{"GET", outcome.Outcome{Kind: outcome.DeniedByPolicy}, 403, CodePermissionDenied},
		{"PUT", outcome.Outcome{Kind: outcome.OutsideWriteRoot}, 403, CodePermissionDenied},
		{"GET", outcome.Outcome{Kind: outcome.PathRejected}, 403, CodePermissionDenied},
		{"GET", outcome.Outcome{Kind: outcome.NotARegularFile}, 403, CodePermissionDenied},
		{"PUT", outcome.Outcome{Kind: outcome.IsADirectory}, 400, CodeInvalidArgument},
		{"PUT", outcome.Outcome{Kind: outcome.NotADirectory}, 400, CodeInvalidArgument},
		{"GET", outcome.Outcome{Kind: outcome.NotADirectory}, 404, CodeNotFound},
		{"DELETE", outcome.Outcome{Kind: outcome.NotADirectory}, 404, CodeNotFound},
		{"DELETE", outcome.Outcome{Kind: outcome.InvalidArguments, Detail: workspace.DetailNotEmpty}, 409, CodeConflict},
		{"DELETE", outcome.Outcome{Kind: outcome.InvalidArguments, Detail: workspace.DetailRoot}, 409, CodeConflict},
		{"DELETE", outcome.Outcome{Kind: outcome.InvalidArguments, Detail: workspace.DetailTooDeep}, 400, CodeInvalidArgument},
		{"PUT", outcome.Outcome{Kind: outcome.OverBudget}, 413, CodeResourceExhausted},
		{"PUT", outcome.Outcome{Kind: outcome.IOFailure, Detail: workspace.DetailSource}, 400, CodeInvalidArgument},
		{"PUT", outcome.Outcome{Kind: outcome.IOFailure}, 500, CodeInternal},
		{"GET", outcome.Outcome{Kind: outcome.TimedOut}, 500, CodeInternal},
	} {
		if s, c := statusOf(tc.method, tc.o); s != tc.status || c != tc.code {
			t.Errorf("%s %s/%s: %d %s, want %d %s", tc.method, tc.o.Kind, tc.o.Detail, s, c, tc.status, tc.code)
		}
	}
}

func TestParseMode(t *testing.T) {
	for q, want := range map[string]int64{"0644": 0o644, "0755": 0o755, "0000": 0, "0777": 0o777,
		"": -1, "644": -1, "0999": -1, "01777": -1, "4755": -1, "0x1ff": -1, "+0644": -1, "0644\n": -1, "０644": -1} {
		m, ok := parseMode(q, true)
		if (want < 0) == ok || (ok && int64(m) != want) {
			t.Errorf("mode %q: %o %v, want %o", q, m, ok, want)
		}
	}
	if m, ok := parseMode("", false); !ok || m != 0o644 {
		t.Errorf("absent mode: %o %v", m, ok)
	}
}

func TestParseRecursive(t *testing.T) {
	for q, want := range map[string]int{"true": 1, "1": 1, "false": 0, "0": 0, "banana": -1, "": -1, "yes": -1} {
		b, ok := parseRecursive(q, true)
		if (want < 0) == ok || (ok && b != (want == 1)) {
			t.Errorf("recursive %q: %v %v", q, b, ok)
		}
	}
	if b, ok := parseRecursive("", false); !ok || b {
		t.Error("absent recursive")
	}
}

func TestMetadataEnv(t *testing.T) {
	got := metadataEnv(testEnvironPure, "SANDBOX_")
	want := map[string]string{"SANDBOX_ID": "sbx-123", "SANDBOX_REGION": "eu", "SANDBOX_AWS_REGION": "x"}
	if len(got) != len(want) || got["SANDBOX_ID"] != "sbx-123" || got["SANDBOX_REGION"] != "eu" || got["SANDBOX_AWS_REGION"] != "x" {
		t.Errorf("metadata env %v, want %v", got, want)
	}
}

var testEnvironPure = []string{
	"SANDBOX_ID=sbx-123", "SANDBOX_REGION=eu", "SANDBOX_ID=later-ignored",
	"SANDBOX_API_TOKEN=x", "SANDBOX_SSH_KEY=x", "SANDBOX_KEYRING=x", "SANDBOX_DB_PASS=x", "SANDBOX_GH_PAT=x",
	"SANDBOX_SESSION_COOKIE=x", "SANDBOX_CREDS=x", "SANDBOX_TLS_CERT=x", "SANDBOX_PRIVATE_URL=x",
	"SANDBOX_BEARER=x", "SANDBOX_AUTHORIZATION=x", "SANDBOX_AWS_REGION=x",
	"SANDBOX_REPO=https://user:pw@git.example/x", "SANDBOX_NOTE=ghp_0123456789abcdefghij",
	"SANDBOX_PEM=-----BEGIN PRIVATE", "SANDBOX_=x", "sandbox_id=lower", "OTHER=x", "NOEQUALS",
}

func TestOutcomeHeaderIsASCIIJSON(t *testing.T) {
	o := outcome.Outcome{Kind: outcome.PathRejected, Path: "a\r\nSet-Cookie: x=1\x00é😀\u2028", Reason: "escape"}
	h := outcomeHeader(o)
	checkHeader(t, h, o)
}

func checkHeader(t *testing.T, h string, o outcome.Outcome) {
	t.Helper()
	for i := 0; i < len(h); i++ {
		if h[i] < 0x20 || h[i] >= 0x7f {
			t.Fatalf("header byte %#x at %d in %q", h[i], i, h)
		}
	}
	var back outcome.Outcome
	if err := json.Unmarshal([]byte(h), &back); err != nil {
		t.Fatalf("header %q: %v", h, err)
	}
	want, _ := json.Marshal(o)
	var wantBack outcome.Outcome
	_ = json.Unmarshal(want, &wantBack)
	if back.Path != wantBack.Path || back.Kind != o.Kind {
		t.Fatalf("header %q decodes to %q, want %q", h, back.Path, wantBack.Path)
	}
	if hv := (http.Header{}); true {
		hv.Set(wire.OutcomeHeader, h)
		if hv.Get(wire.OutcomeHeader) != h {
			t.Fatal("header value changed by net/http")
		}
	}
}

func FuzzOutcomeHeader(f *testing.F) {
	f.Add("/workspace/a\r\nX: y", "escape")
	f.Add("\xff\xfe😀", "")
	f.Fuzz(func(t *testing.T, path, reason string) {
		o := outcome.Outcome{Kind: outcome.PathRejected, Path: path, Reason: reason}
		checkHeader(t, outcomeHeader(o), o)
	})
}

func FuzzMetadataEnv(f *testing.F) {
	f.Add("SANDBOX_X_TOKEN=1")
	f.Add("SANDBOX_A=https://u:p@h")
	f.Fuzz(func(t *testing.T, kv string) {
		for name, value := range metadataEnv([]string{kv}, "SANDBOX_") {
			if credentialLike(name, value) || len(name) <= len("SANDBOX_") || name[:8] != "SANDBOX_" {
				t.Fatalf("served %q=%q", name, value)
			}
		}
	})
}
