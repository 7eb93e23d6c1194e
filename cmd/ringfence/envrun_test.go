package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ringfence/ringfence/internal/testenv"
)

// With zero flags, a Go toolchain works inside: the user's PATH (absolute
// entries), HOME and the Go variables pass.
func TestRunGoWorksWithZeroFlags(t *testing.T) {
	needBackend(t, "auto")
	_, err := exec.LookPath("go")
	testenv.Need(t, "go on PATH", err)
	home := userHome(t)
	ws := workspace(t)
	code, stdout, errOut := cli(t, ws, "", "run", "--", "go", "env", "GOCACHE")
	if code != 0 || strings.TrimSpace(stdout) != filepath.Join(home, ".cache", "go-build") {
		t.Fatalf("go env GOCACHE: exit %d %q %s", code, stdout, errOut)
	}
	code, stdout, errOut = cli(t, ws, "", "run", "--", "go", "version")
	if code != 0 || !strings.HasPrefix(stdout, "go version go") {
		t.Fatalf("go version: exit %d %q %s", code, stdout, errOut)
	}
}

var hostSecrets = map[string]string{
	"GITHUB_TOKEN":          "ghp_canaryAAAAAAAAAAAAAAAA",
	"AWS_SECRET_ACCESS_KEY": "aws-canary-BBBBBBBB",
	"OPENAI_API_KEY":        "sk-canaryCCCCCCCCCCCC",
	"npm_config__authToken": "npm-canary-DDDDDDDD",
	"HTTPS_PROXY":           "http://u:proxy-canary-EEEE@h:3128",
	"GOPROXY":               "https://u:goproxy-canary-FFFF@corp.example",
}

// Secrets in ringfence's environment never reach the command unless the
// person names them with --env; the result and explain list names only.
func TestRunKeepsSecretsOut(t *testing.T) {
	needBackend(t, "auto")
	userHome(t)
	for k, v := range hostSecrets {
		t.Setenv(k, v)
	}
	ws := workspace(t)
	_, res := runJSON(t, ws, "--", "env")
	for k, v := range hostSecrets {
		if strings.Contains(res.Stdout, v) || strings.Contains(res.Stdout, k+"=") {
			t.Errorf("%s reached the command", k)
		}
		if slices.Contains(res.Env, k) {
			t.Errorf("result lists %s", k)
		}
	}
	if !strings.Contains(res.Stdout, "HOME=") || !slices.Contains(res.Env, "HOME") || !slices.Contains(res.Env, "PATH") {
		t.Errorf("HOME/PATH missing: %v\n%s", res.Env, res.Stdout)
	}
	if strings.Contains(strings.Join(res.Env, " "), "canary") {
		t.Errorf("a value in the result's names: %v", res.Env)
	}
	for k, v := range hostSecrets {
		_, res := runJSON(t, ws, "--env", k, "--", "env")
		if !strings.Contains(res.Stdout, k+"="+v+"\n") {
			t.Errorf("--env %s did not pass it:\n%s", k, res.Stdout)
		}
	}
	code, stdout, _ := cli(t, ws, "", "policy", "explain", "--json")
	var e struct {
		Env struct {
			Passed  []string `json:"passed"`
			Refused []struct {
				Name    string `json:"name"`
				Verdict string `json:"verdict"`
			} `json:"refused"`
		} `json:"env"`
	}
	if err := json.Unmarshal([]byte(stdout), &e); err != nil || code != 0 {
		t.Fatalf("explain --json: %d %v", code, err)
	}
	if !slices.Contains(e.Env.Passed, "HOME") || slices.Contains(e.Env.Passed, "GITHUB_TOKEN") || strings.Contains(stdout, "canary") {
		t.Errorf("explain env %+v", e.Env)
	}
	if !slices.ContainsFunc(e.Env.Refused, func(d struct {
		Name    string `json:"name"`
		Verdict string `json:"verdict"`
	}) bool {
		return d.Name == "GOPROXY" && d.Verdict == "credential"
	}) {
		t.Errorf("GOPROXY with userinfo not reported refused: %+v", e.Env.Refused)
	}
	// A workspace file may not pass a secret; the user's own may.
	writeFile(t, filepath.Join(ws, ".ringfence.toml"), "[env]\npass = [\"GITHUB_TOKEN\"]\n")
	if code, _, errOut := cli(t, ws, "", "run", "--", "env"); code != exitPolicy || !strings.Contains(errOut, `env.pass "GITHUB_TOKEN"`) {
		t.Fatalf("workspace env.pass: exit %d %q", code, errOut)
	}
}
