package policyfile

// InitTemplate is a commented starting policy file (`ringfence policy
// init`). Every key it shows is one the parser accepts; it parses and
// resolves as written.
func InitTemplate() string { return initTemplate }

const initTemplate = `# ringfence policy file.
# Found as .ringfence.toml in the workspace root (which the sandbox cannot
# write), else ~/.config/ringfence/policy.toml, unless --policy names one.
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

# Allow writing a file that has another hard link (off: a hard link can
# reach out of the workspace).
allow_aliased_writes = false

# Host unix sockets a command may connect to; every other one is refused.
unix_sockets = []

[network]
# "deny", "loopback", "domains" (with domains = [...]) or "allow-all".
mode = "deny"
# domains = ["proxy.golang.org", "*.githubusercontent.com"]

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
# match must match the prefix and none in not_match may.
[[exec.rule]]
prefix = ["make", "test"]
decision = "allow"
reason = "the project's test target"
match = [["make", "test"], ["make", "test", "V=1"]]
not_match = [["make", "install"]]
`
