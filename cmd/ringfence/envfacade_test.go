package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ringfence/ringfence"
	"github.com/ringfence/ringfence/policy"
)

// envOf runs `env` through the facade with cfg and returns its output. The
// run is unconfined (danger-full-access) so this package's tests need no
// re-executing init: what is checked is the environment the facade builds,
// which every backend receives unchanged.
func envOf(t *testing.T, cfg ringfence.Config, extra map[string]string) (string, *ringfence.ExecResult) {
	t.Helper()
	cfg.Root = t.TempDir()
	cfg.Defaults = policy.Defaults{Mode: policy.DangerFullAccess, Baseline: policy.Read}
	sb, err := ringfence.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	res, err := sb.Exec(context.Background(), []string{"env"}, ringfence.ExecOptions{Env: extra})
	if err != nil || res.ExitCode == nil || *res.ExitCode != 0 {
		t.Fatalf("env: %v %+v", err, res)
	}
	return res.Stdout, res
}

func TestFacadeDefaultEnvironment(t *testing.T) {
	secrets := map[string]string{
		"GITHUB_TOKEN": "ghp_canary0123456789", "AWS_SECRET_ACCESS_KEY": "aws-canary", "OPENAI_API_KEY": "sk-canary0123456789",
		"npm_config__authToken": "npm-canary", "HTTPS_PROXY": "http://u:proxy-canary@h", "GOPROXY": "https://u:goproxy-canary@corp",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("HOME", "/home/canary-home")
	t.Setenv("GOFLAGS", "-mod=mod")
	hostTmp := t.TempDir()
	t.Setenv("TMPDIR", hostTmp)
	t.Setenv("PATH", "/usr/local/go/bin:.:relative:/usr/bin:/bin")

	out, res := envOf(t, ringfence.Config{}, map[string]string{"CALL": "given"})
	for _, v := range secrets {
		if strings.Contains(out, v) {
			t.Errorf("a secret reached the command:\n%s", out)
		}
	}
	for _, want := range []string{"HOME=/home/canary-home\n", "GOFLAGS=-mod=mod\n", "PATH=/usr/local/go/bin:/usr/bin:/bin\n", "CALL=given\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "TMPDIR="+hostTmp+"\n") || !strings.Contains(out, "TMPDIR="+hostTmp+"/ringfence-tmp-") {
		t.Errorf("TMPDIR is not the sandbox's own:\n%s", out)
	}
	if !slices.Contains(res.Env, "HOME") || slices.Contains(res.Env, "GITHUB_TOKEN") || strings.Contains(strings.Join(res.Env, " "), "ghp_") {
		t.Errorf("result env names %v", res.Env)
	}

	// Named by the deployment, a secret passes; Clear is the strict mode.
	out, _ = envOf(t, ringfence.Config{EnvPolicy: policy.Env{Pass: []string{"GITHUB_TOKEN"}}}, nil)
	if !strings.Contains(out, "GITHUB_TOKEN=ghp_canary0123456789\n") {
		t.Errorf("Pass did not pass GITHUB_TOKEN:\n%s", out)
	}
	out, res = envOf(t, ringfence.Config{EnvPolicy: policy.Env{Clear: true}, Env: map[string]string{"SET": "x"}}, nil)
	if !strings.Contains(out, "PATH="+ringfence.DefaultPath+"\n") || strings.Contains(out, "HOME=") || !slices.Equal(res.Env, []string{"PATH", "SET", "TMPDIR"}) {
		t.Errorf("Clear: %v\n%s", res.Env, out)
	}
}
