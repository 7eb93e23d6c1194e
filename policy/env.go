package policy

import (
	"slices"
	"strings"
)

// DefaultPath is the PATH a command gets when the host's PATH is unusable
// or Env.Clear is set.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Env says which environment variables a command gets. The zero value is
// the default allow-list (see DefaultEnv).
type Env struct {
	// Clear starts from nothing but PATH=DefaultPath: no host variable
	// passes unless Pass names it (ringfence's strict mode).
	Clear bool `json:"clear,omitempty"`
	// Pass names host variables passed as they are, credential-like or
	// not: the deployment named them.
	Pass []string `json:"pass,omitempty"`
	// Set are fixed values; they win over every passed variable.
	Set map[string]string `json:"set,omitempty"`
}

// EnvVerdict is what the allow-list decides for one host variable.
type EnvVerdict int

// The verdicts. Only EnvPass lets a variable through.
const (
	EnvPass       EnvVerdict = iota // on the allow-list and not credential-like
	EnvNotListed                    // not a variable a tool needs
	EnvCredential                   // its name or value looks like a credential
	EnvLoadsCode                    // it would run a file at every start of a tool
)

var verdictNames = []string{"pass", "not-listed", "credential", "loads-code"}

func (v EnvVerdict) String() string { return name(verdictNames, "verdict", int(v)) }

// MarshalText implements encoding.TextMarshaler.
func (v EnvVerdict) MarshalText() ([]byte, error) {
	return marshalName(verdictNames, "verdict", int(v))
}

// EnvDecision is the verdict for one variable, by name (never its value).
type EnvDecision struct {
	Name    string     `json:"name"`
	Verdict EnvVerdict `json:"verdict"`
}

// DefaultEnv is the environment a command gets from the host's environ
// (os.Environ()) when nothing else is configured: Env{}.Build(environ).
func DefaultEnv(environ []string) map[string]string {
	vars, _ := Env{}.Build(environ)
	return vars
}

// Build computes the variables a command gets from the host's environ and
// reports, by name, what it decided for every host variable. The first
// occurrence of a name counts (as getenv reads it); a refused first
// occurrence is never replaced by a later one.
func (e Env) Build(environ []string) (map[string]string, []EnvDecision) {
	vars := map[string]string{}
	var report []EnvDecision
	seen := map[string]bool{}
	for _, kv := range environ {
		n, v, ok := strings.Cut(kv, "=")
		if !ok || n == "" || seen[n] {
			continue
		}
		seen[n] = true
		verdict := EnvNotListed
		switch {
		case slices.Contains(e.Pass, n):
			verdict = EnvPass
		case !e.Clear:
			verdict = ClassifyEnv(n, v)
		}
		report = append(report, EnvDecision{Name: n, Verdict: verdict})
		if verdict == EnvPass {
			vars[n] = v
		}
	}
	if p, ok := vars["PATH"]; ok && !slices.Contains(e.Pass, "PATH") {
		vars["PATH"] = CleanPathList(p)
	}
	if vars["PATH"] == "" {
		vars["PATH"] = DefaultPath
	}
	for n, v := range e.Set {
		vars[n] = v
	}
	slices.SortFunc(report, func(a, b EnvDecision) int { return strings.Compare(a.Name, b.Name) })
	return vars, report
}

// CleanPathList keeps the absolute entries of a PATH-like list, in order,
// without repeats: an empty or relative entry would resolve against the
// command's working directory — the workspace, where anything may have
// been planted — and os/exec refuses them for the same reason.
func CleanPathList(p string) string {
	var keep []string
	for _, dir := range strings.Split(p, ":") {
		if strings.HasPrefix(dir, "/") && !slices.Contains(keep, dir) {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, ":")
}

// envExact are variables a shell, a terminal program or a toolchain needs
// to work, passed by exact name.
var envExact = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "TZ",
	"NO_COLOR", "FORCE_COLOR", "CLICOLOR", "SOURCE_DATE_EPOCH",
	"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
	"CC", "CXX", "CPP", "AR", "LD", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "PKG_CONFIG_PATH",
	"VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV",
	"JAVA_HOME", "GRADLE_USER_HOME", "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS",
	"GEM_HOME", "GEM_PATH", "NVM_DIR", "NVM_BIN", "DENO_DIR", "BUN_INSTALL", "PNPM_HOME",
	"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
}

// envPrefixes are toolchain families passed by prefix (each name still
// goes through the credential checks). npm's are matched case-insensitively
// as npm reads them.
var envPrefixes = []string{"LC_", "CGO_", "NODE_", "PYTHON", "PIP_", "CARGO_"}

// ClassifyEnv decides one host variable for the default allow-list. It is
// pure and total: any name and value get a verdict.
func ClassifyEnv(name, value string) EnvVerdict {
	if !envListed(name) {
		return EnvNotListed
	}
	if credentialName(name) || credentialValue(value) {
		return EnvCredential
	}
	if loadsCode(name, value) {
		return EnvLoadsCode
	}
	return EnvPass
}

func envListed(n string) bool {
	if slices.Contains(envExact, n) || goVariable(n) {
		return true
	}
	if strings.HasPrefix(strings.ToLower(n), "npm_config_") {
		return true
	}
	for _, p := range envPrefixes {
		if strings.HasPrefix(n, p) && len(n) > len(p) {
			return true
		}
	}
	return false
}

// goVariable is the go command's own family: GO followed by capitals and
// digits (GOPATH, GOFLAGS, GO111MODULE), which GOOGLE_API_KEY is not.
func goVariable(n string) bool {
	rest, ok := strings.CutPrefix(n, "GO")
	if !ok || rest == "" {
		return false
	}
	for _, c := range rest {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// credentialWords, found anywhere in an upper-cased name, mark a secret or
// a way to one (SSH_AUTH_SOCK, npm's _authToken).
var credentialWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "APIKEY", "API_KEY", "AUTH", "COOKIE", "PRIVATE_KEY"}

// credentialParts, as a whole "_"-separated part of a name, mark one too
// (OPENAI_API_KEY, AWS_ACCESS_KEY_ID, DB_PASS, GH_PAT).
var credentialParts = []string{"KEY", "KEYS", "PASS", "PAT", "PW", "PWD"}

func credentialName(n string) bool {
	// AUTHOR (GIT_AUTHOR_NAME) is a name, not an authorization.
	u := strings.ReplaceAll(strings.ToUpper(n), "AUTHOR", "")
	if strings.HasPrefix(u, "AWS_") {
		return true
	}
	for _, w := range credentialWords {
		if strings.Contains(u, w) {
			return true
		}
	}
	for _, part := range strings.FieldsFunc(u, func(r rune) bool { return r == '_' }) {
		if slices.Contains(credentialParts, part) {
			return true
		}
	}
	return false
}

// tokenPrefixes begin well-known credential formats (GitHub, GitLab,
// Slack, OpenAI, Anthropic, Stripe, npm, PyPI, Hugging Face).
var tokenPrefixes = []string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "xoxa-", "xoxs-",
	"xapp-", "sk-", "sk_live_", "rk_live_", "npm_", "pypi-", "hf_",
}

// credentialValue finds a secret in a value: userinfo in a URL
// (https://u:p@host, also inside a list like GOPROXY's), a token in a
// known format, a PEM block, an AWS access key id.
func credentialValue(v string) bool {
	if strings.Contains(v, "-----BEGIN") {
		return true
	}
	for _, w := range strings.FieldsFunc(v, func(r rune) bool {
		// "=" separates too: -flag=https://u:p@h, -X=main.k=ghp_….
		return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == '|' || r == ';' || r == '"' || r == '\'' || r == '='
	}) {
		if userinfo(w) {
			return true
		}
		for _, p := range tokenPrefixes {
			if strings.HasPrefix(w, p) && len(w) >= len(p)+8 {
				return true
			}
		}
		if len(w) == 20 && (strings.HasPrefix(w, "AKIA") || strings.HasPrefix(w, "ASIA")) && upperAlnum(w) {
			return true
		}
	}
	return false
}

// userinfo reports a URL-like word carrying credentials before its host:
// "scheme://anything@host", or "user:pass@host" without a scheme. A bare
// "git@github.com:x/y" (no password, no scheme) is not one.
func userinfo(w string) bool {
	_, rest, scheme := strings.Cut(w, "://")
	if !scheme {
		rest = w
	}
	authority, _, _ := strings.Cut(rest, "/")
	authority, _, _ = strings.Cut(authority, "?")
	authority, _, _ = strings.Cut(authority, "#")
	user, _, ok := strings.Cut(authority, "@")
	if !ok {
		return false
	}
	return scheme || strings.Contains(user, ":")
}

func upperAlnum(s string) bool {
	for _, c := range s {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// loadsCode: options that make every start of a tool run a file the user
// chose for their own shell (node --require/--import/--loader, Python's
// interactive start-up file). A sandboxed command does not need them, and
// a file such an option names may be one the command planted.
func loadsCode(n, v string) bool {
	switch n {
	case "PYTHONSTARTUP":
		return true
	case "NODE_OPTIONS":
		for _, w := range strings.Fields(v) {
			if w == "-r" || w == "-i" || strings.HasPrefix(w, "--require") || strings.HasPrefix(w, "--import") ||
				strings.HasPrefix(w, "--loader") || strings.HasPrefix(w, "--experimental-loader") {
				return true
			}
		}
	}
	return false
}
