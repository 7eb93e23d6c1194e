package policyfile

// InitTemplate is a commented starting policy file (`ringfence policy
// init`). Every key it shows is one the parser accepts; it parses and
// resolves as written.
func InitTemplate() string { return initTemplate }

const initTemplate = `# ringfence policy file.
# Found as .ringfence.toml in the workspace root (which the sandbox cannot
# write), else ~/.config/ringfence/policy.toml, unless --policy names one.
# A workspace's .ringfence.toml may only NARROW your own policy (that file,
# or the built-in defaults) until you trust it, at exactly its current
# contents: ringfence policy trust .ringfence.toml. As written, this file
# only narrows the built-in defaults, so it works untrusted.
# A request from a model may only narrow what this file allows; widening
# needs a person's approval.

# File effects: "read-only", "workspace-write" or "danger-full-access".
mode = "workspace-write"

# Where no entry applies: "read" (the host is readable, entries deny) or
# "deny" (nothing is readable unless an entry says so).
baseline = "read"

# .git under each writable root: "default" keeps hooks and config read-only
# and commits working; "read-only" protects all of it; "writable" nothing.
protect_git = "default"

# More read-only subpaths under every writable root, on top of the built-in
# ones (.git/hooks, .git/config, shell start-up files, .vscode, .claude, …).
protected = [".env"]

# More names held at any depth under every writable root, as .git's hooks
# and .vscode are: a file or directory with one of these names is
# read-only wherever it is (a single name, no "/").
protected_names = []

# Allow writing a file that has another hard link (off: a hard link can
# reach out of the workspace).
allow_aliased_writes = false

# Host unix sockets a command may connect to; every other one is refused.
unix_sockets = []

[network]
# "deny", "loopback", "domains" (with allow = [...]) or "allow-all".
mode = "deny"
# Under "domains": host, host:port, *.suffix (subdomains, not the apex),
# [IPv6], IP/CIDR, "*" (allow only) and presets (@go, @npm, @pypi, …).
# Deny always wins; reasons are what the model is told.
# allow = ["@go", "*.github.com"]
# deny = ["pastebin.com"]
# reasons = { "pastebin.com" = "exfiltration risk" }

# Carve-outs. path: absolute, "~/…" or relative to the workspace root.
# access: "deny", "read" or "write". The deepest entry containing a path
# decides its access.
[[entry]]
path = "~/.ssh"
access = "deny"

[[entry]]
path = "~/.aws"
access = "deny"

[limits]
# Durations like "30s" or "5m"; sizes like "512M" or "2G". Omit for none.
wall_clock = "10m"
memory = "4G"
processes = 512
cpu_time = "10m"

[exec]
# Outcome for each command capability: "allow", "allow-scoped",
# "ask-approval" or "deny".
[exec.outcomes]
network = "ask-approval"

# Extra prefix rules, checked before the built-in table. Each example in
# match must match the prefix and none in not_match may. decision is
# "allow", "ask" or "deny"; an untrusted workspace file's rules may only deny.
[[exec.rule]]
prefix = ["make", "deploy"]
decision = "deny"
reason = "deploys run from CI, never from an agent"
match = [["make", "deploy"], ["make", "deploy", "ENV=prod"]]
not_match = [["make", "test"]]

[env]
# Host variables commands get. By default an allow-list: PATH (absolute
# entries), HOME, USER, locale and terminal variables, toolchain ones
# (GO*, CGO_*, NODE_*, PYTHON*, npm_config_*, CARGO_*, ...), never one
# whose name or value looks like a credential. "ringfence policy explain"
# lists them, by name.
# clear = true passes none (PATH is the system default).
clear = false
# Passed as they are, credential-like or not (a workspace file needs trust).
pass = []
# Fixed values (a workspace file needs trust).
# set = { CI = "1" }
`
