package seccomp

import (
	"testing"

	"github.com/ringfence/ringfence/policy"
)

func TestNameGuardDecide(t *testing.T) {
	g := &NameGuard{Roots: []string{"/w", "/tmp/t"}}
	for _, c := range []struct {
		path string
		a    act
		want verdict
	}{
		{"/w/src/main.go", actFile, vAllow},
		{"/w/src/main.go", actWrite, vAllow},
		{"/elsewhere/.bashrc", actFile, vAllow}, // outside every root: the mounts' and Landlock's
		{"/w/src/app/.ringfence.toml", actFile, vRefuse},
		{"/w/a/.cursor/mcp.json", actFile, vRefuse},
		{"/w/a/.cursor/mcp.json", actWrite, vRefuse},
		{"/w/.envrc", actSource, vRefuse},
		{"/w/.vscode", actMkdir, vAllow},
		{"/w/.vscode", actTree, vRefuse},
		{"/tmp/t/x/.claude/settings.json", actFile, vRefuse},
		{"/w/.husky/pre-commit", actFile, vRefuse},
		{"/w/.githooks/pre-commit", actFile, vRefuse},
		{"/w/tools/post-checkout", actWrite, vRefuse},
		// git from nothing
		{"/w/.git", actMkdir, vAllow},
		{"/w/.git/hooks", actMkdir, vAllow},
		{"/w/.git/hooks/pre-commit.sample", actFile, vAllow},
		{"/w/.git/hooks/pre-commit.sample", actWrite, vAllow},
		{"/w/.git/hooks/pre-commit", actFile, vRefuse},
		{"/w/.git/hooks/x.sample", actTree, vRefuse},
		{"/w/.git/hooks/sub/x.sample", actFile, vRefuse},
		{"/w/.git/config", actFile, vConfig},
		{"/w/.git/config", actWrite, vRefuse},
		{"/w/.git/config", actSource, vRefuse},
		{"/w/.git/config.lock", actFile, vAllow},
		{"/w/src/inner/.git/config", actFile, vConfig},
		{"/w/.git/modules/x/config", actFile, vConfig},
		{"/w/.git/modules/x/config", actWrite, vRefuse},
		{"/w/.git/worktrees/w1/commondir", actFile, vPointer},
		{"/w/.git/worktrees/w1/commondir", actWrite, vPointer},
		{"/w/.git/worktrees/w1/commondir", actTree, vRefuse},
		{"/w/.git/worktrees/w1/commondir", actSource, vRefuse},
		{"/w/.git/worktrees/w1/HEAD", actFile, vAllow},
		{"/w/.git/worktrees/w1/logs", actTree, vRefuse}, // a renamed directory or symlink in the tree
		{"/w/.git/modules/x", actTree, vRefuse},
		{"/w/.git/refs/heads", actTree, vAllow},
		{"/w/.git/index", actFile, vAllow},
		{"/w/src/inner/.git", actFile, vPointer}, // a gitdir: pointer, checked by content
		{"/w/src/inner/.git", actWrite, vPointer},
		{"/w/src/inner/.git", actTree, vRefuse},   // a prepared directory or a symlink
		{"/w/src/inner/.git", actSource, vRefuse}, // moved away, then back
		{"/w/src/inner/.git", actMkdir, vAllow},
		{"/w/src/inner/.git/HEAD", actFile, vAllow},
	} {
		if got := g.decide(c.path, c.a); got != c.want {
			t.Errorf("%s act %d: got %d, want %d", c.path, c.a, got, c.want)
		}
	}
	var none *NameGuard
	if none.decide("/w/.bashrc", actFile) != vAllow {
		t.Error("a nil guard refuses")
	}
	w := &NameGuard{Roots: []string{"/w"}, Names: policy.NameProtection{GitWritable: true, Extra: []string{"secrets"}}}
	if w.decide("/w/.git/config", actWrite) != vAllow || w.decide("/w/a/secrets", actFile) != vRefuse {
		t.Error("NameProtection options ignored")
	}
}

// TestGuardWriteFilter: under GuardWrite an open that may write goes to
// the supervisor, a read-only one stays in the kernel, and truncate is
// always supervised; without it, only O_CREAT is.
func TestGuardWriteFilter(t *testing.T) {
	w := Options{GuardCreate: true, GuardWrite: true}
	c := Options{GuardCreate: true}
	for _, goarch := range []string{"amd64", "arm64"} {
		for _, tc := range []tcase{
			{name: "openat O_RDONLY", sys: "openat", opts: w, args: [6]uint64{0, 0, 0}, action: ActionAllow},
			{name: "openat O_WRONLY", sys: "openat", opts: w, args: [6]uint64{0, 0, oWronly}, action: ActionNotify},
			{name: "openat O_RDWR", sys: "openat", opts: w, args: [6]uint64{0, 0, oRdwr}, action: ActionNotify},
			{name: "openat O_TRUNC read-only", sys: "openat", opts: w, args: [6]uint64{0, 0, oTrunc}, action: ActionNotify},
			{name: "openat O_WRONLY high word only", sys: "openat", opts: w, args: [6]uint64{0, 0, oWronly << 32}, action: ActionAllow},
			{name: "openat O_WRONLY without GuardWrite", sys: "openat", opts: c, args: [6]uint64{0, 0, oWronly}, action: ActionAllow},
			{name: "truncate", sys: "truncate", opts: w, action: ActionNotify},
			{name: "truncate without GuardWrite", sys: "truncate", opts: c, action: ActionAllow},
			{name: "ftruncate", sys: "ftruncate", opts: w, action: ActionAllow},
			{name: "openat2", sys: "openat2", opts: w, action: ActionENOSYS},
		} {
			if got := eval(t, goarch, tc); got != tc.action {
				t.Errorf("%s %s: got %s, want %s", goarch, tc.name, actionName(got), actionName(tc.action))
			}
		}
		if goarch == "amd64" {
			for _, tc := range []tcase{
				{name: "open O_WRONLY", sys: "open", opts: w, args: [6]uint64{0, oWronly}, action: ActionNotify},
				{name: "open O_RDONLY", sys: "open", opts: w, args: [6]uint64{0, 0}, action: ActionAllow},
			} {
				if got := eval(t, goarch, tc); got != tc.action {
					t.Errorf("%s %s: got %s, want %s", goarch, tc.name, actionName(got), actionName(tc.action))
				}
			}
		}
	}
}

// FuzzGuardWriteFilter checks what GuardWrite adds to GuardCreate, and
// that it adds nothing else: opens whose flags may write and truncate go
// to the supervisor; every other verdict is GuardCreate's alone.
func FuzzGuardWriteFilter(f *testing.F) {
	f.Add(uint8(0), int32(257), uint64(0), uint64(1))
	f.Add(uint8(0), int32(2), uint64(0x200), uint64(0))
	f.Add(uint8(1), int32(56), uint64(1<<32), uint64(2))
	f.Add(uint8(0), int32(76), uint64(0), uint64(0))
	f.Fuzz(func(t *testing.T, archIdx uint8, n int32, a1, a2 uint64) {
		goarch := []string{"amd64", "arm64"}[archIdx%2]
		d := data{nr: n, arch: targets[goarch].audit, args: [6]uint64{a2, a1, a2, a1, a2, a1}}
		verdict := func(write bool) uint32 {
			prog, err := Build(Options{Arch: goarch, GuardCreate: true, GuardWrite: write})
			if err != nil {
				t.Fatal(err)
			}
			v, err := run(prog, d)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		got, without := verdict(true), verdict(false)
		name := ""
		for s, v := range targets[goarch].table {
			if int32(v) == n {
				name = s
			}
		}
		const mask = oCreat | oWronly | oRdwr | oTrunc
		// A set-id creation mode is refused before the guard, with or
		// without GuardWrite (meta.go).
		setid := func(flags, mode uint64) bool {
			return uint32(flags)&(oCreat|oTmpfileBit) != 0 && uint32(mode)&(sISUID|sISGID) != 0
		}
		switch {
		case name == "open" && setid(d.args[1], d.args[2]), name == "openat" && setid(d.args[2], d.args[3]):
			expect(t, name+" with a set-id mode", got, ActionEPERM)
		case name == "open" && uint32(a1)&mask != 0, name == "openat" && uint32(a2)&mask != 0, name == "truncate":
			expect(t, name, got, ActionNotify)
		default:
			expect(t, "unchanged "+name, got, without)
		}
	})
}

// TestGuardRemoveFilter: GuardRemove sends every removal to the
// supervisor (arm64 has only unlinkat).
func TestGuardRemoveFilter(t *testing.T) {
	r := Options{GuardCreate: true, GuardRemove: true}
	c := Options{GuardCreate: true}
	for _, goarch := range []string{"amd64", "arm64"} {
		names := []string{"unlinkat"}
		if goarch == "amd64" {
			names = append(names, "unlink", "rmdir")
		}
		for _, name := range names {
			if got := eval(t, goarch, tcase{sys: name, opts: r}); got != ActionNotify {
				t.Errorf("%s %s: %s", goarch, name, actionName(got))
			}
			if got := eval(t, goarch, tcase{sys: name, opts: c}); got != ActionAllow {
				t.Errorf("%s %s without GuardRemove: %s", goarch, name, actionName(got))
			}
		}
	}
}
