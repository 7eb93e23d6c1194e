package seccomp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func init() { helpers["writeloop"] = helperWriteLoop }

// helperWriteLoop times open(O_WRONLY)+close of an existing file, laid
// out as the init is (filter on this locked thread, supervisor on the
// others). "names" routes every write-open to the name guard; "guard"
// (GuardCreate alone) and "plain" leave it in the kernel.
func helperWriteLoop() int {
	n, _ := strconv.Atoi(os.Getenv(loopsEnv))
	dir := os.Getenv(dirEnv)
	path := dir + "/src/pkg/file.go"
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	runtime.LockOSThread() // never unlocked: the filtered thread dies with us
	var opts *Options
	switch os.Getenv(filterEnv) {
	case "plain":
		opts = &Options{}
	case "guard":
		opts = &Options{GuardCreate: true}
	case "names":
		opts = &Options{GuardCreate: true, GuardWrite: true}
	}
	if opts != nil {
		l, err := buildInstall(*opts, ThisThread)
		if err != nil {
			fmt.Println("install=" + err.Error())
			return 1
		}
		if l != nil {
			rules := Protect{}.Rules(nil)
			if opts.GuardWrite {
				rules.Names = &NameGuard{Roots: []string{dir}}
			}
			go func() { _ = Supervise(context.Background(), l, rules) }()
		}
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			fmt.Println("open=" + err.Error())
			return 1
		}
		unix.Close(fd)
	}
	fmt.Printf("ns=%d\n", time.Since(start).Nanoseconds()/int64(max(n, 1)))
	return 0
}

// BenchmarkGuardedWriteOpen reports what the name guard adds to opening
// an existing file for writing (ns/open), against GuardCreate alone (where
// it stays in the kernel), the plain filter and none.
func BenchmarkGuardedWriteOpen(b *testing.B) {
	dir, err := os.MkdirTemp("/dev/shm", "ringfence-bench-")
	if err != nil {
		dir = b.TempDir()
	} else {
		b.Cleanup(func() { os.RemoveAll(dir) })
	}
	if err := os.MkdirAll(dir+"/src/pkg", 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(dir+"/src/pkg/file.go", []byte("package pkg\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, filter := range []string{"none", "plain", "guard", "names"} {
		b.Run("filter="+filter, func(b *testing.B) {
			out, ps := spawnB(b, "writeloop", dirEnv+"="+dir, filterEnv+"="+filter, loopsEnv+"="+strconv.Itoa(b.N))
			ns, err := strconv.Atoi(results(out)["ns"])
			if !ps.Success() || err != nil {
				b.Fatalf("helper: %v %q", ps, out)
			}
			b.ReportMetric(float64(ns), "ns/open")
		})
	}
}

// BenchmarkGitWork times the ordinary git work of TestNameGuardOrdinaryGit
// (init, config, commit, branch, stash, rebase, a nested repository) with
// the plain filter and under the name guard: the cost a person sees.
func BenchmarkGitWork(b *testing.B) {
	for _, filter := range []string{"plain", "names"} {
		b.Run("filter="+filter, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ws, err := os.MkdirTemp("", "ringfence-git-")
				if err != nil {
					b.Fatal(err)
				}
				env := append(gitEnv(ws), scriptEnv+"="+ordinaryGit, dirEnv+"="+ws, filterEnv+"="+filter)
				out, ps := spawnB(b, "namesup", env...)
				os.RemoveAll(ws)
				if !ps.Success() {
					b.Fatalf("%v\n%s", ps, out)
				}
			}
		})
	}
}
