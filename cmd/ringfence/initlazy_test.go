package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// initBudget is the most a package of this module may allocate at package
// initialisation (allocations, as GODEBUG=inittrace=1 counts them: exact,
// unlike its clock). Every ringfence process pays it — `ringfence version`,
// and the sandbox init, which is this same binary — so tables, regexps,
// templates and schemas are built on first use. The classifier keeps a few
// small maps; the rest keep almost nothing.
var initBudget = map[string]int{
	"execpolicy":                32, // was 473: its program table is built on the first Classify; 84 before its sub-tables and sets were (issue 16)
	"internal/confine/bwrap":    16, // was 443: the version regexp compiles on first use
	"internal/auditview":        32, // was 567: the page template parses on first render
	"internal/confine/initproc": 16,
	"internal/confine/linux":    16,
	"internal/confine/landlock": 16,
	"internal/run":              16,
	"internal/confine/seccomp":  64, // its syscall tables; the reverse table is built on first use
	"policy":                    32,
	"outcome":                   32,
	"tools":                     32,
	"internal/mcp":              64,
}

// initBytesBudget is the most a package of this module may allocate, in
// bytes, at package initialisation: a few large allocations (a table of
// hundreds of entries built eagerly: execpolicy's sub-tables were 55 KB in
// 84 allocations) stay within an allocation budget but not within this.
const initBytesBudget = 16 << 10

// initBytesBudgetFor raises initBytesBudget for a package whose init is
// not ours to make lazy.
var initBytesBudgetFor = map[string]int{
	// Generated protobuf code registers its file at init (protoimpl), and
	// the global registry's tables grow then. Since protodesc and its
	// descriptor packages left the binary (internal/sandboxd/reflection),
	// that growth is counted here: 14 KiB before, ≈18 KiB since.
	"internal/sandboxd/spec/process/v1": 24 << 10,
}

// The CLI's package initialisation stays within initBudget per package, and
// the module's library packages within 320 allocations in all (≈2,000
// before tables, regexps and templates became lazy) and initBytesBudget
// each, 80 KiB in all. Measured on the real
// command line (`ringfence version` through this test binary), so the
// figures are the CLI's; the test binary's own package main is not judged
// (its _test.go files are part of it).
func TestPackageInitIsLazy(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "version")
	cmd.Env = append(os.Environ(), cliMainEnv+"=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ringfence version: %v\n%s", err, out)
	}
	const module = "github.com/ringfence/ringfence/"
	seen, total, totalBytes := map[string]int{}, 0, 0
	for line := range strings.SplitSeq(string(out), "\n") {
		// init PKG @T ms, C ms clock, B bytes, A allocs
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[10] != "allocs" || !strings.HasPrefix(f[1], module) {
			continue
		}
		pkg := strings.TrimPrefix(f[1], module)
		allocs, err := strconv.Atoi(f[9])
		size, err2 := strconv.Atoi(f[7])
		if err != nil || err2 != nil || f[8] != "bytes," {
			t.Fatalf("unreadable inittrace line %q", line)
		}
		if pkg == "cmd/ringfence" || strings.Contains(pkg, "test") {
			continue
		}
		seen[pkg] = allocs
		total += allocs
		totalBytes += size
		budget := initBytesBudget
		if b, ok := initBytesBudgetFor[pkg]; ok {
			budget = b
		}
		if size > budget {
			t.Errorf("package %s allocates %d bytes at init (budget %d): build its tables on first use", pkg, size, budget)
		}
	}
	if len(seen) == 0 {
		t.Fatalf("no inittrace line of this module's packages in:\n%s", out)
	}
	for pkg, budget := range initBudget {
		got, ok := seen[pkg]
		if !ok {
			continue // no package initialisation at all: within any budget
		}
		if got > budget {
			t.Errorf("package %s allocates %d times at init (budget %d): build its tables on first use", pkg, got, budget)
		}
	}
	if total > 320 {
		t.Errorf("this module's packages allocate %d times at init (budget 320): %v", total, seen)
	}
	if totalBytes > 80<<10 {
		t.Errorf("this module's packages allocate %d bytes at init (budget %d)", totalBytes, 80<<10)
	}
	t.Logf("init allocations per package: %v (total %d)", seen, total)
}
