package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassifyEnv(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        EnvVerdict
	}{
		// The basics a shell and a toolchain need.
		{"HOME", "/home/u", EnvPass},
		{"USER", "u", EnvPass},
		{"LANG", "C.UTF-8", EnvPass},
		{"LC_ALL", "C", EnvPass},
		{"TERM", "xterm-256color", EnvPass},
		{"GOPATH", "/home/u/go", EnvPass},
		{"GOFLAGS", "-mod=mod", EnvPass},
		{"GO111MODULE", "on", EnvPass},
		{"GOPROXY", "https://proxy.golang.org,direct", EnvPass},
		{"CGO_ENABLED", "0", EnvPass},
		{"NODE_ENV", "test", EnvPass},
		{"NODE_OPTIONS", "--max-old-space-size=4096", EnvPass},
		{"NODE_PATH", "/usr/lib/node_modules", EnvPass},
		{"PYTHONPATH", "/src", EnvPass},
		{"VIRTUAL_ENV", "/home/u/.venv", EnvPass},
		{"npm_config_cache", "/home/u/.npm", EnvPass},
		{"NPM_CONFIG_REGISTRY", "https://registry.npmjs.org/", EnvPass},
		{"CARGO_HOME", "/home/u/.cargo", EnvPass},
		{"GIT_AUTHOR_NAME", "A U Thor", EnvPass},
		{"REPO", "git@github.com:o/r.git", EnvNotListed},
		{"GOPRIVATE", "git@github.com:o/r.git", EnvPass},
		// Not something a tool needs.
		{"TMPDIR", "/tmp/host-only", EnvNotListed},
		{"LD_PRELOAD", "/x.so", EnvNotListed},
		{"BASH_ENV", "/x", EnvNotListed},
		{"HTTPS_PROXY", "http://h:3128", EnvNotListed},
		{"GOOGLE_CLOUD_PROJECT", "p", EnvNotListed},
		{"SSH_AUTH_SOCK", "/run/ssh.sock", EnvNotListed},
		{"GITHUB_TOKEN", "ghp_0123456789abcdef", EnvNotListed},
		{"NODE", "x", EnvNotListed},
		{"PWD", "/x", EnvNotListed},
		// Credential-like names inside a listed family.
		{"NODE_AUTH_TOKEN", "x", EnvCredential},
		{"npm_config__authToken", "x", EnvCredential},
		{"npm_config_//registry.npmjs.org/:_authToken", "x", EnvCredential},
		{"NPM_CONFIG__AUTH", "x", EnvCredential},
		{"GOAUTH", "netrc", EnvCredential},
		{"PIP_PASSWORD", "x", EnvCredential},
		{"PYTHON_API_KEY", "x", EnvCredential},
		{"CARGO_REGISTRIES_CORP_TOKEN", "x", EnvCredential},
		{"NODE_SECRET", "x", EnvCredential},
		{"PYTHON_DB_PASS", "x", EnvCredential},
		{"CGO_KEY", "x", EnvCredential},
		// Credential-like values inside a listed family.
		{"GOPROXY", "https://user:pass@proxy.corp/,direct", EnvCredential},
		{"GOPROXY", "https://proxy.golang.org|https://tok@goproxy.corp", EnvCredential},
		{"PIP_INDEX_URL", "https://u:p@pypi.corp/simple", EnvCredential},
		{"PIP_EXTRA_INDEX_URL", "u:p@pypi.corp/simple", EnvCredential},
		{"npm_config_registry", "https://ghp_0123456789abcdef0123@npm.pkg.github.com", EnvCredential},
		{"GOFLAGS", "-ldflags=-X=main.k=ghp_0123456789abcdefXYZ", EnvCredential},
		{"NODE_EXTRA", "sk-proj-abcdefghijklmnop", EnvCredential},
		{"PYTHONX", "AKIAABCDEFGHIJKLMNOP", EnvCredential},
		{"CFLAGS", "-DKEY=\"-----BEGIN PRIVATE KEY-----\"", EnvCredential},
		{"GOFLAGS", "-toolexec=https://x@y", EnvCredential},
		// Code loaders.
		{"NODE_OPTIONS", "--require /home/u/hook.js", EnvLoadsCode},
		{"NODE_OPTIONS", "-r ./setup.js", EnvLoadsCode},
		{"NODE_OPTIONS", "--import=./x.mjs", EnvLoadsCode},
		{"NODE_OPTIONS", "--experimental-loader ./l.mjs", EnvLoadsCode},
		{"PYTHONSTARTUP", "/home/u/.pythonrc", EnvLoadsCode},
	} {
		if got := ClassifyEnv(tc.name, tc.value); got != tc.want {
			t.Errorf("ClassifyEnv(%q, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestEnvBuild(t *testing.T) {
	host := []string{
		"PATH=/usr/local/go/bin::.:bin:/usr/bin:/usr/local/go/bin",
		"HOME=/home/u", "GITHUB_TOKEN=ghp_abcdefghijklmnop", "AWS_SECRET_ACCESS_KEY=x",
		"OPENAI_API_KEY=sk-abcdefghijkl", "npm_config__authToken=t", "HTTPS_PROXY=http://u:p@h",
		"TMPDIR=/host/tmp", "GOPATH=/first", "GOPATH=/second", "NOEQUALS", "=x",
		"GOPROXY=https://u:p@corp", "GOPROXY=https://proxy.golang.org",
	}
	for _, tc := range []struct {
		name string
		env  Env
		want map[string]string
	}{
		{"default", Env{}, map[string]string{"PATH": "/usr/local/go/bin:/usr/bin", "HOME": "/home/u", "GOPATH": "/first"}},
		{"pass names a secret", Env{Pass: []string{"GITHUB_TOKEN", "HTTPS_PROXY", "MISSING"}},
			map[string]string{"PATH": "/usr/local/go/bin:/usr/bin", "HOME": "/home/u", "GOPATH": "/first", "GITHUB_TOKEN": "ghp_abcdefghijklmnop", "HTTPS_PROXY": "http://u:p@h"}},
		{"clear", Env{Clear: true}, map[string]string{"PATH": DefaultPath}},
		{"clear with pass and set", Env{Clear: true, Pass: []string{"HOME"}, Set: map[string]string{"A": "b", "HOME": "/set"}},
			map[string]string{"PATH": DefaultPath, "HOME": "/set", "A": "b"}},
	} {
		got, _ := tc.env.Build(host)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	_, report := Env{}.Build(host)
	verdicts := map[string]EnvVerdict{}
	for _, d := range report {
		verdicts[d.Name] = d.Verdict
	}
	if verdicts["GOPROXY"] != EnvCredential || verdicts["GITHUB_TOKEN"] != EnvNotListed || verdicts["HOME"] != EnvPass {
		t.Errorf("report %v", report)
	}
	if got := DefaultEnv([]string{"PATH=.:", "HOME=/h"}); got["PATH"] != DefaultPath {
		t.Errorf("a PATH with no absolute entry: %q, want the default", got["PATH"])
	}
	if got := DefaultEnv(nil); len(got) != 1 || got["PATH"] != DefaultPath {
		t.Errorf("empty host: %v", got)
	}
}

// FuzzEnvBuild: whatever the host environment, the result never holds a
// variable the allow-list refuses, PATH is absolute entries only, and a
// value reaches the command only under its own name.
func FuzzEnvBuild(f *testing.F) {
	f.Add("PATH=/bin:.:x\x00GITHUB_TOKEN=ghp_x\x00GOPROXY=https://u:p@h\x00HOME=/h")
	f.Add("NODE_OPTIONS=-r x\x00npm_config__auth=y\x00LC_ALL=C")
	f.Fuzz(func(t *testing.T, s string) {
		environ := strings.Split(s, "\x00")
		vars, report := Env{}.Build(environ)
		first := map[string]string{}
		for _, kv := range environ {
			if n, v, ok := strings.Cut(kv, "="); ok && n != "" {
				if _, dup := first[n]; !dup {
					first[n] = v
				}
			}
		}
		if len(report) != len(first) {
			t.Fatalf("report has %d names, environ %d", len(report), len(first))
		}
		for n, v := range vars {
			if n == "PATH" {
				for _, d := range strings.Split(v, ":") {
					if !strings.HasPrefix(d, "/") {
						t.Fatalf("PATH entry %q", d)
					}
				}
				continue
			}
			if ClassifyEnv(n, v) != EnvPass {
				t.Fatalf("%s passed with verdict %v", n, ClassifyEnv(n, v))
			}
			if first[n] != v {
				t.Fatalf("%s=%q is not the host's first value %q", n, v, first[n])
			}
		}
	})
}

// FuzzClassifyEnvFindsSecrets: a credential-shaped word set off by a
// separator anywhere in a listed variable's value is found, whatever
// surrounds it; and a credential-like name is refused whatever its value.
func FuzzClassifyEnvFindsSecrets(f *testing.F) {
	f.Add("https://proxy.golang.org", "direct", "u", "p", uint8(0))
	f.Add("", "", "ghp_x", "y", uint8(1))
	f.Fuzz(func(t *testing.T, before, after, user, pass string, sep uint8) {
		if strings.ContainsAny(user+pass, " \t\n,|;\"'=/@?#:") || user == "" || pass == "" {
			return
		}
		s := string(" ,|;"[int(sep)%4])
		v := before + s + "https://" + user + ":" + pass + "@host.example/x" + s + after
		for _, n := range []string{"GOPROXY", "PIP_INDEX_URL", "npm_config_registry", "NODE_X"} {
			if got := ClassifyEnv(n, v); got != EnvCredential {
				t.Fatalf("ClassifyEnv(%s, %q) = %v", n, v, got)
			}
		}
		if got := ClassifyEnv("NODE_"+user+"_TOKEN", after); got != EnvCredential {
			t.Fatalf("a _TOKEN name passed as %v", got)
		}
	})
}

func BenchmarkDefaultEnv(b *testing.B) {
	environ := []string{"PATH=/usr/local/go/bin:/usr/bin:/bin", "HOME=/home/u", "USER=u", "LANG=C.UTF-8", "TERM=xterm",
		"GOPATH=/home/u/go", "GITHUB_TOKEN=ghp_abcdefghijklmnop", "GOPROXY=https://proxy.golang.org,direct",
		"SSH_AUTH_SOCK=/run/ssh", "NODE_OPTIONS=--max-old-space-size=4096", "PYTHONUNBUFFERED=1", "XDG_RUNTIME_DIR=/run/user/1000"}
	for range b.N {
		DefaultEnv(environ)
	}
}
